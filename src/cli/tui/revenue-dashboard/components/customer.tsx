import { Box, Text } from 'ink';
import type { CustomerDetail } from '../data.js';

/** The customer `o` opened: what they hold now, and a portal link to hand them (valid until it expires). */
export function Customer({ customer }: { customer: CustomerDetail }) {
  return (
    <Box flexDirection="column" marginTop={1} borderStyle="round" paddingX={1}>
      <Text bold>{`Customer ${customer.label}  (${customer.id})`}</Text>
      <Text>{`${customer.activeSubscriptions} active subscription(s) · ${customer.grantedBenefits} benefit(s) granted`}</Text>
      <Text>{`Portal: ${customer.portalUrl}`}</Text>
      <Text dimColor>{`link valid until ${customer.portalExpiresAt}`}</Text>
    </Box>
  );
}
