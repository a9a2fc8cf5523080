import { CheckoutPage } from '../checkout/CheckoutPage.js';
import { hydratePage } from './hydrate.js';

// The hosted checkout's browser entry (bundled by scripts/bundle-pages.mjs): the same view, hydrated.
hydratePage(CheckoutPage);
