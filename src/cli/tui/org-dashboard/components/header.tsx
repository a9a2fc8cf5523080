import { Box, Text } from 'ink';
import type { OrgWire } from '../../../commands/org/shared.js';

export function Header({ org }: { org: OrgWire }) {
  return (
    <Box>
      <Text bold>{org.name}</Text>
      <Text>{`  (${org.slug})`}</Text>
      <Text dimColor>{`  id ${org.id}`}</Text>
    </Box>
  );
}
