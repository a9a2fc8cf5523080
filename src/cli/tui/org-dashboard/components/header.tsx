import { Box, Text } from 'ink';
import type { DashboardOrganization } from '../data.js';

export function Header({ org }: { org: DashboardOrganization }) {
  return (
    <Box>
      <Text bold>{org.name}</Text>
      <Text>{`  (${org.slug})`}</Text>
      <Text dimColor>{`  id ${org.id}`}</Text>
    </Box>
  );
}
