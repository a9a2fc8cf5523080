import { Box, Text } from 'ink';
import type { Mode, SectionId, Status } from '../model.js';

/** The line that asks (y/N), says a replay is under way, or lists the keys that work here. */
function Prompt({ mode, section }: { mode: Mode; section: SectionId }) {
  if (mode.kind === 'confirm') return <Text color="yellow">{`${mode.question} [y/N]`}</Text>;
  if (mode.kind === 'busy') return <Text dimColor>{`${mode.label}…`}</Text>;
  const hint = section === 'deliveries' ? ' · r replay the event' : '';
  return <Text dimColor>{`Tab section · ↑/↓ row${hint} · q quit`}</Text>;
}

function StatusLine({ status }: { status: Status }) {
  if (status.tone === 'error') return <Text color="red">{`✗ ${status.text}`}</Text>;
  if (status.tone === 'done') return <Text color="green">{`✓ ${status.text}`}</Text>;
  return <Text dimColor>{status.text}</Text>;
}

export function Footer({ mode, section, status }: { mode: Mode; section: SectionId; status: Status | null }) {
  return (
    <Box flexDirection="column" marginTop={1}>
      {status ? <StatusLine status={status} /> : null}
      <Prompt mode={mode} section={section} />
    </Box>
  );
}
