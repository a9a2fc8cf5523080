import { Text } from 'ink';
import { FooterFrame } from '../../footer.js';
import type { Mode, SectionId, Status } from '../model.js';

/** The line that asks (y/N), says a replay is under way, or lists the keys that work here. */
function Prompt({ mode, section }: { mode: Mode; section: SectionId }) {
  if (mode.kind === 'confirm') return <Text color="yellow">{`${mode.question} [y/N]`}</Text>;
  if (mode.kind === 'busy') return <Text dimColor>{`${mode.label}…`}</Text>;
  const hint = section === 'deliveries' ? ' · r replay the event' : '';
  return <Text dimColor>{`Tab section · ↑/↓ row${hint} · q quit`}</Text>;
}

export function Footer({ mode, section, status }: { mode: Mode; section: SectionId; status: Status | null }) {
  return (
    <FooterFrame status={status}>
      <Prompt mode={mode} section={section} />
    </FooterFrame>
  );
}
