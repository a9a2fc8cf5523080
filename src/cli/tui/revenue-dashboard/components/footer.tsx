import { Text } from 'ink';
import { FooterFrame } from '../../footer.js';
import type { Mode, SectionId, Status } from '../model.js';

/** The line that asks (y/N), says an action is under way, or lists the keys that work here. */
function Prompt({ mode, section }: { mode: Mode; section: SectionId }) {
  if (mode.kind === 'confirm') return <Text color="yellow">{`${mode.question} [y/N]`}</Text>;
  if (mode.kind === 'busy') return <Text dimColor>{`${mode.label}…`}</Text>;
  const actions = section === 'past_due' ? ' · r retry charge · c cancel · o customer' : ' · o customer';
  return <Text dimColor>{`1-4 range · i interval · Tab section · ↑/↓ row${actions} · q quit`}</Text>;
}

export function Footer({ mode, section, status }: { mode: Mode; section: SectionId; status: Status | null }) {
  return (
    <FooterFrame status={status}>
      <Prompt mode={mode} section={section} />
    </FooterFrame>
  );
}
