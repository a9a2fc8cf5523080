import { PortalPage } from '../portal/PortalPage.js';
import { hydratePage } from './hydrate.js';

// The hosted customer portal's browser entry (bundled by scripts/bundle-pages.mjs): the same view, hydrated.
hydratePage(PortalPage);
