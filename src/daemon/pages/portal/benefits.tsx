import { useState } from 'react';
import type { PortalLicenseKey, PortalProps } from './model.js';
import { ActionForm } from './ActionForm.js';

/** The portal's benefit sections: notes and connections, license keys, downloads and meters. */

export function BenefitsSection({ props }: { props: PortalProps }) {
  if (props.benefits.length === 0) return null;
  return (
    <section aria-labelledby="benefits">
      <h2 id="benefits">Benefits</h2>
      <ul className="rows">
        {props.benefits.map((benefit) => (
          <li key={benefit.id} data-testid="benefit">
            <strong>{benefit.description}</strong>
            {benefit.note ? <p className="description">{benefit.note}</p> : null}
            {benefit.connect ? (
              <p>
                <a href={benefit.connect.url}>
                  {benefit.connect.platform === 'github' ? 'Connect GitHub' : 'Connect Discord'}
                </a>
              </p>
            ) : null}
            {benefit.problem && !benefit.connect ? <p className="help">{benefit.problem}</p> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  return (
    <>
      <button
        type="button"
        onClick={() => {
          navigator.clipboard.writeText(text).then(
            () => setCopied('yes'),
            () => setCopied('failed'),
          );
        }}
      >
        Copy
      </button>
      {copied ? (
        <span className="help" role="status">
          {copied === 'yes' ? 'Copied' : 'Select the key and copy it'}
        </span>
      ) : null}
    </>
  );
}

function LicenseKey({ base, item, hydrated }: { base: string; item: PortalLicenseKey; hydrated: boolean }) {
  return (
    <li data-testid="license-key">
      <strong>{item.benefit}</strong> <span className="help">{item.status}</span>
      <div className="inline-form">
        <input
          readOnly
          value={item.key}
          aria-label={`License key for ${item.benefit}`}
          className="key"
          data-testid="license-key-value"
        />
        {hydrated ? <CopyButton text={item.key} /> : null}
      </div>
      <p className="help">
        {[item.usage, item.activationsText, item.expires ? `expires ${item.expires}` : null]
          .filter(Boolean)
          .join(' · ')}
      </p>
      {item.activations.length > 0 ? (
        <ul className="rows">
          {item.activations.map((activation) => (
            <li key={activation.id} data-testid="activation">
              {activation.label} <span className="help">since {activation.date}</span>
              <ActionForm
                base={base}
                action="deactivate"
                fields={{ license_key_id: item.id, activation_id: activation.id }}
              >
                <button type="submit" className="link">
                  Deactivate
                </button>
              </ActionForm>
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

export function LicenseKeysSection({ props, hydrated }: { props: PortalProps; hydrated: boolean }) {
  if (props.licenseKeys.length === 0) return null;
  return (
    <section aria-labelledby="license-keys">
      <h2 id="license-keys">License keys</h2>
      <ul className="rows">
        {props.licenseKeys.map((item) => (
          <LicenseKey key={item.id} base={props.base} item={item} hydrated={hydrated} />
        ))}
      </ul>
    </section>
  );
}

export function DownloadsSection({ props }: { props: PortalProps }) {
  if (!props.downloads || props.downloads.length === 0) return null;
  return (
    <section aria-labelledby="downloads">
      <h2 id="downloads">Downloads</h2>
      <ul className="rows">
        {props.downloads.map((download) => (
          <li key={download.id} data-testid="download">
            <a href={download.url}>{download.name}</a> <span className="help">{download.size}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function MetersSection({ props }: { props: PortalProps }) {
  if (props.meters.length === 0) return null;
  return (
    <section aria-labelledby="usage">
      <h2 id="usage">Usage</h2>
      <table className="totals">
        <thead>
          <tr>
            <th>Meter</th>
            <th>Used</th>
            <th>Credited</th>
            <th>Balance</th>
          </tr>
        </thead>
        <tbody>
          {props.meters.map((meter) => (
            <tr key={meter.id}>
              <td>{meter.name}</td>
              <td>{meter.consumed}</td>
              <td>{meter.credited}</td>
              <td>{meter.balance}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
