/**
 * The hosted portal's props: plain JSON, built on the server (view.ts) and hydrated from in the browser, so it holds
 * only what this customer may see, already formatted (the browser never formats a date or an amount differently
 * from the server).
 */

export interface PortalOrder {
  id: string;
  date: string;
  description: string;
  total: string;
  status: string;
  /** Paid or refunded: a receipt exists. */
  hasReceipt: boolean;
  invoiceGenerated: boolean;
}

export interface PortalPlan {
  id: string;
  label: string;
}

export interface PortalSubscription {
  id: string;
  product: string;
  price: string;
  status: string;
  /** What the period end means for this subscription: renews, ends or ended. */
  periodText: string;
  cancelAtPeriodEnd: boolean;
  /** Still running (active, trialing or past due): it can be canceled, uncanceled or moved to another plan. */
  live: boolean;
  productId: string;
}

export interface PortalCard {
  id: string;
  label: string;
  isDefault: boolean;
}

export interface PortalActivation {
  id: string;
  label: string;
  date: string;
}

export interface PortalLicenseKey {
  id: string;
  key: string;
  benefit: string;
  status: string;
  usage: string | null;
  activationsText: string | null;
  expires: string | null;
  activations: PortalActivation[];
}

export interface PortalBenefit {
  id: string;
  type: string;
  description: string;
  /** A custom benefit's note to its holders. */
  note: string | null;
  /** GitHub or Discord waiting for the customer to connect an account: where to do it. */
  connect: { platform: 'github' | 'discord'; url: string } | null;
  /** Why the grant is not in force, when the strategy said so. */
  problem: string | null;
}

export interface PortalDownload {
  id: string;
  name: string;
  size: string;
  url: string;
}

export interface PortalMeter {
  id: string;
  name: string;
  consumed: string;
  credited: string;
  balance: string;
}

export interface PortalProps {
  /** The form actions and links are under /portal/<slug>. */
  base: string;
  organization: string;
  customer: { name: string | null; email: string | null };
  notice: string | null;
  error: string | null;
  orders: PortalOrder[];
  subscriptions: PortalSubscription[];
  plans: PortalPlan[];
  cards: PortalCard[];
  testCards: Array<{ number: string; note: string }>;
  benefits: PortalBenefit[];
  licenseKeys: PortalLicenseKey[];
  /** Null when this daemon serves no downloadables: the section is left out rather than shown empty. */
  downloads: PortalDownload[] | null;
  meters: PortalMeter[];
}
