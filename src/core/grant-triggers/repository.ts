import type { Db } from '../database/index.js';

/** The one write a trigger makes besides its job: the orders module owns `orders`, the grant engine this column. */
export function grantTriggersRepository(db: Db) {
  return {
    async markOrderBenefitsRevoked(orderId: string, at: Date): Promise<void> {
      await db('orders').where({ id: orderId }).whereNull('benefits_revoked_at').update({ benefits_revoked_at: at });
    },
  };
}
