/**
 * Keeping cards with the processor without charging them (Stripe's SetupIntent and PaymentMethod retrieval): the
 * customer portal adds a card this way, and a checkout asks for the details of the card its charge kept. Charging a
 * kept card stays with `PaymentProcessor.chargeSavedMethod`; the reference returned here is what it takes.
 */

/** What Till shows of a kept card. */
export interface SavedCard {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export type MethodSetupResult =
  | { status: 'succeeded'; methodReference: string; card: SavedCard }
  | { status: 'failed'; declineReason: string; declineMessage: string };

export interface PaymentMethodVault {
  /** The processor the kept methods belong to (`PaymentProcessor.name`). */
  readonly processor: string;
  /** Keeps the card behind a token the customer just entered, for later charges with the customer absent. */
  setUp(token: string): Promise<MethodSetupResult>;
  /** The card behind a kept method's reference, or null when the processor does not know it. */
  retrieve(methodReference: string): Promise<SavedCard | null>;
}
