import { Box, Text } from 'ink';
import type { ReactNode } from 'react';

/** What every dashboard's status line reports: a change that went through, a note, or the daemon's refusal. */
export interface StatusTone {
  tone: 'done' | 'note' | 'error';
  text: string;
}

function StatusLine({ status }: { status: StatusTone }) {
  if (status.tone === 'error') return <Text color="red">{`✗ ${status.text}`}</Text>;
  if (status.tone === 'done') return <Text color="green">{`✓ ${status.text}`}</Text>;
  return <Text dimColor>{status.text}</Text>;
}

/** The bottom of a dashboard: the status line when there is one, above the screen's own prompt line. */
export function FooterFrame({ status, children }: { status: StatusTone | null; children: ReactNode }) {
  return (
    <Box flexDirection="column" marginTop={1}>
      {status ? <StatusLine status={status} /> : null}
      {children}
    </Box>
  );
}
