import { Text } from 'ink';
import { FooterFrame } from '../../footer.js';
import { ROLES } from '../data.js';
import type { Mode, SectionId, Status } from '../model.js';

const HINTS: Record<SectionId, string> = {
  members: 'r role · d remove',
  teams: '',
  invitations: 'c cancel invitation',
};

/** The line that asks (role choice, y/N), says what is going on, or lists the keys that work here. */
function Prompt({ mode, section }: { mode: Mode; section: SectionId }) {
  if (mode.kind === 'choose-role') {
    return (
      <Text>
        {`Role for ${mode.label}: `}
        {ROLES.map((role) => (
          <Text key={role} inverse={role === mode.role} bold={role === mode.role}>{` ${role} `}</Text>
        ))}
        <Text dimColor>{'  ←/→ choose · Enter apply · Esc cancel'}</Text>
      </Text>
    );
  }
  if (mode.kind === 'confirm') return <Text color="yellow">{`${mode.question} [y/N]`}</Text>;
  if (mode.kind === 'busy') return <Text dimColor>{`${mode.label}…`}</Text>;
  const hint = HINTS[section];
  return <Text dimColor>{`Tab/←/→ section · ↑/↓ row${hint ? ` · ${hint}` : ''} · q quit`}</Text>;
}

export function Footer({ mode, section, status }: { mode: Mode; section: SectionId; status: Status | null }) {
  return (
    <FooterFrame status={status}>
      <Prompt mode={mode} section={section} />
    </FooterFrame>
  );
}
