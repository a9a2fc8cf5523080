// Apart from schemas.ts so the CLI can check `--status` without loading the wire schemas (and what they import).
export const ORDER_STATUSES = ['pending', 'paid', 'refunded', 'partially_refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
