// The customer portal page: the customer's subscriptions (cancel at period end with a reason, or
// keep them; pause at period end and resume when the seller allows it), orders, benefits (license
// keys with copy, downloads) and usage, for the customer session whose token opened it.
import { useCallback, useEffect, useRef, useState } from "react";
import { money } from "../checkout/format.ts";
import {
  portalApi,
  PortalApiError,
  type BenefitGrant,
  type CustomerMeter,
  type Customer,
  type Downloadable,
  type LicenseKey,
  type Order,
  type PaymentMethod,
  type PortalApi,
  type Subscription,
  type SubscriptionMeter,
  type Wallet,
} from "./api.ts";
import { OrdersSection } from "./orders.tsx";
import { PaymentMethods } from "./payment-methods.tsx";
import { day } from "./dates.ts";
import { SubscriptionCard } from "./subscription-card.tsx";

/** The seller's return URL as a link target, only when it is http(s). */
function backHref(url: string | null): string | null {
  if (!url) return null;
  try {
    return ["http:", "https:"].includes(new URL(url).protocol) ? url : null;
  } catch {
    return null;
  }
}

interface Data {
  me: Customer;
  back: string | null;
  subscriptions: Subscription[];
  orders: Order[];
  grants: BenefitGrant[];
  licenseKeys: LicenseKey[];
  downloadables: Downloadable[];
  meters: CustomerMeter[];
  wallets: Wallet[];
  paymentMethods: PaymentMethod[];
}

export function PortalPage({
  token,
  notice = null,
}: {
  token: string | null;
  /** A message from how the page was opened (an email change link). */
  notice?: string | null;
}) {
  const [api] = useState<PortalApi | null>(() => (token ? portalApi(token) : null));
  const [data, setData] = useState<Data | null>(null);
  const [error, setError] = useState<string | null>(
    token
      ? null
      : "This page needs a link from the store. Open the portal again from your account.",
  );

  // After an action the page reloads what it shows; a reload that fails then keeps the page as it
  // was and says the action went through (the server answered it) but the page is not up to date.
  const [refresh, setRefresh] = useState<Refresh | null>(null);
  const loaded = useRef(false);
  const refreshRef = useRef<HTMLButtonElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);

  /** Loads the page's data; answers whether the page now shows it. */
  const load = useCallback(async (): Promise<boolean> => {
    if (!api) return false;
    try {
      const [
        me,
        session,
        subscriptions,
        orders,
        grants,
        licenseKeys,
        downloadables,
        meters,
        wallets,
        paymentMethods,
      ] = await Promise.all([
        api.me(),
        api.session(),
        api.subscriptions(),
        api.orders(),
        api.benefitGrants(),
        api.licenseKeys(),
        api.downloadables(),
        api.meters(),
        api.wallets(),
        api.paymentMethods(),
      ]);
      setData({
        me,
        back: backHref(session.return_url),
        subscriptions,
        orders,
        grants,
        licenseKeys,
        downloadables,
        meters,
        wallets,
        paymentMethods,
      });
      loaded.current = true;
      setRefresh((r) => (r === "failed" || r === "still" ? "refreshed" : null));
      return true;
    } catch (err) {
      if (loaded.current) setRefresh((r) => (r === null || r === "refreshed" ? "failed" : "still"));
      else
        setError(
          err instanceof PortalApiError ? err.message : "Could not load your account. Try again.",
        );
      return false;
    }
  }, [api]);
  useEffect(() => void load(), [load]);
  // The control the buyer used may be gone or stale: focus goes to the way to refresh, then to
  // the page's heading once it is up to date.
  useEffect(() => {
    if (refresh === "failed") refreshRef.current?.focus();
    if (refresh === "refreshed") headingRef.current?.focus();
  }, [refresh]);
  const [retrying, setRetrying] = useState(false);
  const retry = async () => {
    if (retrying) return;
    setRetrying(true);
    await load();
    setRetrying(false);
  };

  const shown = notice ? (
    <p role="status" className="notice">
      {notice}
    </p>
  ) : null;
  if (error)
    return (
      <main className="portal">
        {shown}
        <p role="alert" className="error">
          {error}
        </p>
      </main>
    );
  if (!data || !api)
    return (
      <main className="portal" aria-busy="true">
        <p className="muted">Loading…</p>
      </main>
    );
  const seller = data.subscriptions[0]?.product.organization.name;
  return (
    <main className="portal">
      {shown}
      {data.back ? (
        <a className="back" href={data.back}>
          ← Back to {seller ?? "the store"}
        </a>
      ) : null}
      <header className="bar">
        <h1 ref={headingRef} tabIndex={-1}>
          {seller ? `${seller} — your account` : "Your account"}
        </h1>
        <span className="muted">{data.me.email}</span>
      </header>
      {refresh === "failed" || refresh === "still" ? (
        <div className="notice stale">
          <p role="alert">{REFRESH_FAILED[refresh]}</p>
          <button
            ref={refreshRef}
            type="button"
            aria-disabled={retrying}
            onClick={() => void retry()}
          >
            Refresh
          </button>
        </div>
      ) : null}
      {refresh === "refreshed" ? (
        <p role="status" className="notice">
          The page is up to date.
        </p>
      ) : null}
      <section aria-labelledby="subs-h">
        <h2 id="subs-h">Subscriptions</h2>
        {data.subscriptions.length === 0 ? (
          <p className="muted">No subscriptions.</p>
        ) : (
          data.subscriptions.map((s) => (
            <SubscriptionCard
              key={s.id}
              api={api}
              subscription={s}
              orders={data.orders}
              hasCard={data.paymentMethods.length > 0}
              onChange={load}
            />
          ))
        )}
      </section>
      <PaymentMethods
        api={api}
        methods={data.paymentMethods}
        defaultId={data.me.default_payment_method_id ?? null}
        pastDue={data.subscriptions.some((s) => s.status === "past_due")}
        currency={data.subscriptions[0]?.currency ?? "usd"}
        onChange={load}
      />
      {data.wallets.some((w) => w.balance !== 0) ? (
        <section aria-labelledby="balance-h">
          <h2 id="balance-h">Balance</h2>
          {data.wallets
            .filter((w) => w.balance !== 0)
            .map((w) => (
              <div key={w.id} className="card row wallet" data-wallet={w.id}>
                {/* Negative: orders too small to charge, owed until the next order adds them. */}
                <span>
                  {w.balance > 0
                    ? "Credit towards your next orders"
                    : "Owed, added to your next order"}
                </span>
                <span>{money(Math.abs(w.balance), w.currency)}</span>
              </div>
            ))}
        </section>
      ) : null}
      <OrdersSection api={api} orders={data.orders} />
      <section aria-labelledby="benefits-h">
        <h2 id="benefits-h">Benefits</h2>
        {data.grants.length === 0 &&
        data.licenseKeys.length === 0 &&
        data.downloadables.length === 0 ? (
          <p className="muted">No benefits yet.</p>
        ) : null}
        {data.grants.map((g) => (
          <div key={g.id} className="card row">
            <span>{g.benefit.description}</span>
            <span className="muted">{BENEFIT_TYPE_NAMES[g.benefit.type] ?? g.benefit.type}</span>
          </div>
        ))}
        {data.licenseKeys.map((k) => (
          <LicenseKeyCard
            key={k.id}
            licenseKey={k}
            benefit={
              data.grants.find((g) => g.benefit_id === k.benefit_id)?.benefit.description ??
              "your purchase"
            }
          />
        ))}
        {data.downloadables.map((d) => (
          <div key={d.id} className="card row download">
            <a href={d.file.download.url} download={d.file.name}>
              {d.file.name}
            </a>
            <span className="muted">{d.file.size_readable}</span>
          </div>
        ))}
      </section>
      {showsUsage(data) && (
        <section aria-labelledby="usage-h">
          <h2 id="usage-h">Usage</h2>
          {data.meters.length === 0 && !metered(data).length ? (
            <p className="muted">No usage to show.</p>
          ) : null}
          {metered(data).flatMap((s) =>
            s.meters.map((m) => (
              <div key={m.id} className="card row meter" data-meter={m.meter.id}>
                <span>
                  {m.meter.name} <span className="muted">· {s.product.name}</span>
                </span>
                <span>{periodUsage(m, s.currency)}</span>
              </div>
            )),
          )}
          {data.meters.map((m) => (
            <div key={m.id} className="card row meter" data-meter={m.meter_id}>
              <span>{m.meter.name}</span>
              <span>
                {`${m.consumed_units.toLocaleString()} used of ${m.credited_units.toLocaleString()} (${creditLeft(m.balance)})`}
              </span>
            </div>
          ))}
        </section>
      )}
    </main>
  );
}

/** Where a reload after an action stands: failed (once, or again on Refresh) or done since. */
type Refresh = "failed" | "still" | "refreshed";

const REFRESH_FAILED: Record<"failed" | "still", string> = {
  failed:
    "Your change was made, but this page could not be refreshed to show it. Refresh to see your account as it is now.",
  still: "This page still could not be refreshed. Check your connection, then refresh again.",
};

/** The names Polar's customer portal gives each benefit type. */
const BENEFIT_TYPE_NAMES: Record<string, string> = {
  custom: "Custom",
  discord: "Discord invite",
  downloadables: "File downloads",
  github_repository: "GitHub repository access",
  license_keys: "License keys",
  meter_credit: "Meter credits",
};

/** "5 left", or "5 over" once usage has gone past the credit. */
function creditLeft(balance: number): string {
  return balance < 0 ? `${(-balance).toLocaleString()} over` : `${balance.toLocaleString()} left`;
}

/** Subscriptions still billing whose prices are metered. */
function metered(data: Data): Subscription[] {
  return data.subscriptions.filter(
    (s) => s.meters.length > 0 && ["active", "trialing", "past_due"].includes(s.status),
  );
}

/** "37 units this period, 10 included · $2.70 so far": what the next renewal bills for it. */
function periodUsage(m: SubscriptionMeter, currency: string): string {
  const units = `${m.consumed_units.toLocaleString()} ${m.consumed_units === 1 ? "unit" : "units"} this period`;
  const included = m.credited_units > 0 ? `, ${m.credited_units.toLocaleString()} included` : "";
  return `${units}${included} · ${money(m.amount, currency)} so far`;
}

/** The seller's customer_portal_settings.usage.show, as its subscriptions' products carry it. */
function showsUsage(data: Data): boolean {
  const organization = data.subscriptions[0]?.product.organization;
  return organization?.customer_portal_settings?.usage.show !== false;
}

const KEY_STATUSES: Record<string, string> = { revoked: "Revoked", disabled: "Disabled" };

function LicenseKeyCard({ licenseKey: k, benefit }: { licenseKey: LicenseKey; benefit: string }) {
  const [copied, setCopied] = useState<"not yet" | "copied" | "refused">("not yet");
  // The page shows the key masked: where the browser gives no clipboard (plain http, a refused
  // permission) the whole key is shown, selected, for the buyer to copy by hand.
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(k.key);
      setCopied("copied");
    } catch {
      setCopied("refused");
    }
  };
  return (
    <div className="card stack license-key" data-license-key={k.id}>
      <div className="row">
        <span>
          <code>{k.display_key}</code>
          {k.status === "granted" && k.expires_at ? (
            <span className="muted"> · expires {day(k.expires_at)}</span>
          ) : null}
        </span>
        {/* A revoked or disabled key no longer works: it is said so, with nothing to copy. */}
        {k.status === "granted" ? (
          <button
            type="button"
            // The name holds the words shown (WCAG's label in name) and whose key it copies.
            aria-label={`${copied === "copied" ? "Copied" : "Copy"} key for ${benefit}`}
            onClick={() => void copy()}
          >
            {copied === "copied" ? "Copied" : "Copy key"}
          </button>
        ) : (
          <span className="key-status">{KEY_STATUSES[k.status] ?? k.status}</span>
        )}
      </div>
      {copied === "refused" ? (
        <label className="field">
          <span>This browser would not copy it: select the key and copy it</span>
          <input
            readOnly
            value={k.key}
            // biome-ignore lint/a11y/noAutofocus: shown on the buyer's own click, to copy at once
            autoFocus
            onFocus={(e) => e.currentTarget.select()}
          />
        </label>
      ) : null}
    </div>
  );
}
