import { useEffect, useState } from 'react';
import type { PortalProps } from './model.js';
import { BenefitsSection, DownloadsSection, LicenseKeysSection, MetersSection } from './benefits.js';
import { ActionForm } from './ActionForm.js';

/**
 * The hosted customer portal: server-rendered, every change a plain form posting back to the portal (so it works
 * without JavaScript), hydrated in the browser for what needs it (copying a license key).
 */

function OrdersSection({ props }: { props: PortalProps }) {
  return (
    <section aria-labelledby="orders">
      <h2 id="orders">Orders</h2>
      {props.orders.length === 0 ? <p className="help">No orders yet.</p> : null}
      <ul className="rows">
        {props.orders.map((order) => (
          <li key={order.id} data-testid="order">
            <div>
              <strong>{order.description}</strong> <span className="help">{order.date}</span>
            </div>
            <div>
              {order.total} · {order.status.replaceAll('_', ' ')}
            </div>
            <div className="actions">
              {order.hasReceipt ? <a href={`${props.base}/orders/${order.id}/receipt`}>Receipt</a> : null}
              {order.invoiceGenerated ? (
                <a href={`${props.base}/orders/${order.id}/invoice`}>Invoice</a>
              ) : order.hasReceipt ? (
                <ActionForm base={props.base} action="invoice" fields={{ order_id: order.id }}>
                  <button type="submit" className="link">
                    Get an invoice
                  </button>
                </ActionForm>
              ) : null}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

function SubscriptionsSection({ props }: { props: PortalProps }) {
  if (props.subscriptions.length === 0) return null;
  return (
    <section aria-labelledby="subscriptions">
      <h2 id="subscriptions">Subscriptions</h2>
      <ul className="rows">
        {props.subscriptions.map((subscription) => {
          const others = props.plans.filter((plan) => plan.id !== subscription.productId);
          return (
            <li key={subscription.id} data-testid="subscription">
              <div>
                <strong>{subscription.product}</strong> · {subscription.price}
              </div>
              <div className="help">
                {subscription.status.replaceAll('_', ' ')} · {subscription.periodText}
              </div>
              {subscription.live ? (
                <div className="actions">
                  {subscription.cancelAtPeriodEnd ? (
                    <ActionForm base={props.base} action="uncancel" fields={{ subscription_id: subscription.id }}>
                      <button type="submit">Keep my subscription</button>
                    </ActionForm>
                  ) : (
                    <ActionForm base={props.base} action="cancel" fields={{ subscription_id: subscription.id }}>
                      <button type="submit">Cancel at the end of the period</button>
                    </ActionForm>
                  )}
                  {others.length > 0 && !subscription.cancelAtPeriodEnd ? (
                    <ActionForm base={props.base} action="change_plan" fields={{ subscription_id: subscription.id }}>
                      <label className="inline" htmlFor={`plan-${subscription.id}`}>
                        Change plan
                      </label>
                      <select id={`plan-${subscription.id}`} name="product_id" defaultValue="">
                        <option value="" disabled>
                          Choose a plan…
                        </option>
                        {others.map((plan) => (
                          <option key={plan.id} value={plan.id}>
                            {plan.label}
                          </option>
                        ))}
                      </select>
                      <button type="submit">Change plan</button>
                    </ActionForm>
                  ) : null}
                </div>
              ) : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function CardsSection({ props }: { props: PortalProps }) {
  return (
    <section aria-labelledby="cards">
      <h2 id="cards">Payment method</h2>
      <ul className="rows">
        {props.cards.map((card) => (
          <li key={card.id}>
            <span data-testid="card">{card.isDefault ? `${card.label} · default` : card.label}</span>
            {card.isDefault ? null : (
              <ActionForm base={props.base} action="default_card" fields={{ payment_method_id: card.id }}>
                <button type="submit" className="link">
                  Make default
                </button>
              </ActionForm>
            )}
          </li>
        ))}
      </ul>
      <ActionForm base={props.base} action="add_card" className="field">
        <label htmlFor="card_number">{props.cards.length > 0 ? 'Use a new card' : 'Add a card'}</label>
        <div className="inline-form">
          <input id="card_number" name="card_number" inputMode="numeric" autoComplete="cc-number" required />
          <button type="submit">Save card</button>
        </div>
        <p className="help">
          Sandbox: use a test card such as {props.testCards.map((card) => card.number).join(' or ')}. It becomes your
          default card and pays your subscriptions&apos; next bills.
        </p>
      </ActionForm>
    </section>
  );
}

export function PortalPage(props: PortalProps) {
  // Hydrated, the page offers what only a script can do (copy to the clipboard).
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return (
    <main className="portal">
      <header className="card">
        <p className="org">{props.organization}</p>
        <h1>Your purchases</h1>
        <p className="help">
          Signed in as {props.customer.name ? `${props.customer.name} · ` : ''}
          {props.customer.email}
        </p>
        {props.notice ? (
          <p className="notice" role="status">
            {props.notice}
          </p>
        ) : null}
        {props.error ? (
          <p className="alert" role="alert">
            {props.error}
          </p>
        ) : null}
      </header>
      <SubscriptionsSection props={props} />
      <BenefitsSection props={props} />
      <LicenseKeysSection props={props} hydrated={hydrated} />
      <DownloadsSection props={props} />
      <MetersSection props={props} />
      <OrdersSection props={props} />
      <CardsSection props={props} />
    </main>
  );
}
