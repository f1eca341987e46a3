// The page a buyer sees after paying: what was bought, the amount paid, the order number, what
// happens next (license keys with Copy, downloads, accounts to connect) and a link to the customer
// portal. No receipt is promised: till does not send one. In the overlay it keeps the close button.
import { useEffect, useMemo, useState } from "react";
import { embedContext, forwardEscape, notify } from "../checkout/embed.ts";
import { money } from "../checkout/format.ts";
import { renewalPrice } from "../checkout/summary.tsx";
import type { Checkout } from "../checkout/types.ts";
import { day } from "../portal/dates.ts";
import {
  ConfirmationError,
  loadCheckout,
  loadOrder,
  type Confirmation,
  type Grant,
} from "./data.ts";

type State =
  | { kind: "loading" }
  | { kind: "failed"; message: string }
  | { kind: "unpaid"; checkout: Checkout }
  | { kind: "shown"; data: Confirmation };

export function ConfirmationPage(props: { secret: string; token: string | null }) {
  const [state, setState] = useState<State>({ kind: "loading" });
  const checkout =
    state.kind === "shown" ? state.data.checkout : state.kind === "unpaid" ? state.checkout : null;
  const embed = useMemo(
    () => embedContext(checkout?.embed_origin ?? null),
    [checkout?.embed_origin],
  );

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    void (async () => {
      try {
        const c = await loadCheckout(props.secret);
        if (stopped) return;
        if (c.status !== "succeeded") return setState({ kind: "unpaid", checkout: c });
        // Benefits are granted in the background: ask again while any is pending (about 20 s).
        for (let attempt = 0; !stopped; attempt++) {
          const data = await loadOrder(c, props.token);
          if (stopped) return;
          setState({ kind: "shown", data });
          if (!data.pending || attempt >= 20) return;
          await new Promise((r) => {
            timer = setTimeout(r, 1000);
          });
        }
      } catch (e) {
        if (!stopped)
          setState({
            kind: "failed",
            message: e instanceof ConfirmationError ? e.message : "The order could not be loaded.",
          });
      }
    })();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [props.secret, props.token]);

  useEffect(() => (embed.origin ? forwardEscape(embed) : undefined), [embed]);
  const close = embed.embedded ? () => notify(embed, "close") : null;

  if (state.kind === "loading")
    return (
      <main className="checkout confirmation-page" aria-busy="true">
        <p className="muted">Loading your order…</p>
      </main>
    );
  if (state.kind === "failed")
    return (
      <main className="checkout confirmation-page">
        <h1>Order not available</h1>
        <p role="alert">{state.message}</p>
      </main>
    );
  if (state.kind === "unpaid")
    return (
      <main className="checkout confirmation-page">
        <Bar name={state.checkout.organization.name} onClose={close} />
        <h1>This checkout was not paid</h1>
        <p>Nothing was charged.</p>
        {state.checkout.status === "open" ? (
          <a className="button" href={`/checkout/${encodeURIComponent(props.secret)}`}>
            Back to checkout
          </a>
        ) : null}
      </main>
    );

  const { data } = state;
  const c = data.checkout;
  const paid = data.order?.total_amount ?? c.total_amount;
  const renews = renewalPrice(c);
  const portal = props.token
    ? `/portal?customer_session_token=${encodeURIComponent(props.token)}`
    : null;
  return (
    <main className="checkout confirmation-page">
      <Bar name={c.organization.name} onClose={close} />
      <section className="confirmed" aria-labelledby="confirmed-title">
        <div className="tick" aria-hidden="true">
          ✓
        </div>
        <h1 id="confirmed-title">Thanks for your order</h1>
        <p>
          You bought <strong>{c.product.name}</strong>
          {c.customer_email ? (
            <>
              {" "}
              as <strong>{c.customer_email}</strong>
            </>
          ) : null}
          .
        </p>
        <dl className="facts">
          <div>
            <dt>Amount paid</dt>
            {/* "Free" only for a free product, as the checkout says: a trial paid nothing yet. */}
            <dd data-testid="amount-paid">
              {paid === 0 && c.product_price.amount_type === "free"
                ? "Free"
                : money(paid, c.currency)}
            </dd>
          </div>
          {data.order?.invoice_number ? (
            <div>
              <dt>Order number</dt>
              <dd data-testid="order-number">{data.order.invoice_number}</dd>
            </div>
          ) : null}
          {renews ? (
            <div>
              <dt>Renews at</dt>
              <dd data-testid="renews-at">{renews}</dd>
            </div>
          ) : null}
          {data.subscription ? (
            <div>
              {/* A trial's period ends when it does: that is the first charge. */}
              <dt>{data.subscription.status === "trialing" ? "First charge" : "Next charge"}</dt>
              <dd data-testid="renews-on">
                {day(data.subscription.trial_end ?? data.subscription.current_period_end)}
              </dd>
            </div>
          ) : null}
        </dl>
      </section>
      <section className="next" aria-labelledby="next-title">
        <h2 id="next-title">What happens next</h2>
        <NextSteps data={data} portal={portal} />
      </section>
      {portal ? (
        <p>
          <a
            className="button"
            href={portal}
            {...(embed.embedded ? { target: "_blank", rel: "noopener" } : {})}
          >
            Manage your purchase
          </a>
        </p>
      ) : null}
    </main>
  );
}

function Bar(props: { name: string; onClose: (() => void) | null }) {
  return (
    <header className="bar">
      <span className="org">{props.name}</span>
      {props.onClose ? (
        <button type="button" className="close" aria-label="Close" onClick={props.onClose}>
          ×
        </button>
      ) : null}
    </header>
  );
}

function NextSteps({ data, portal }: { data: Confirmation; portal: string | null }) {
  if (!data.order)
    return (
      <p>
        Your purchase is complete. {data.checkout.organization.name} has your order; its benefits
        are in your customer portal.
      </p>
    );
  if (data.grants.length === 0)
    return <p>Your purchase is complete. There is nothing else to do.</p>;
  return (
    <ul className="benefits">
      {data.grants.map((g) => (
        <li key={g.id} data-benefit-type={g.benefit.type}>
          <strong>{g.benefit.description}</strong>
          <GrantDetail grant={g} data={data} portal={portal} />
        </li>
      ))}
    </ul>
  );
}

function GrantDetail(props: { grant: Grant; data: Confirmation; portal: string | null }) {
  const g = props.grant;
  if (g.error)
    return <p className="error">{g.error.message ?? "This benefit could not be granted yet."}</p>;
  if (!g.is_granted && g.benefit.type !== "discord" && g.benefit.type !== "github_repository")
    return <p className="muted">Being prepared…</p>;
  switch (g.benefit.type) {
    case "license_keys":
      return (
        <>
          {props.data.licenseKeys
            .filter((k) => k.benefit_id === g.benefit_id)
            .map((k) => (
              <LicenseKey key={k.id} value={k.key} />
            ))}
        </>
      );
    case "downloadables":
      return (
        <ul className="downloads">
          {props.data.downloadables
            .filter((d) => !d.benefit_id || d.benefit_id === g.benefit_id)
            .map((d) => (
              <li key={d.id}>
                <a href={d.file.download.url} download={d.file.name}>
                  Download {d.file.name}
                </a>{" "}
                <span className="muted">{d.file.size_readable}</span>
              </li>
            ))}
        </ul>
      );
    case "discord":
    case "github_repository": {
      const what = g.benefit.type === "discord" ? "Discord" : "GitHub";
      if (g.is_granted) return <p className="muted">Access granted to your {what} account.</p>;
      return props.portal ? (
        <p>
          <a className="button secondary" href={props.portal}>
            Connect your {what} account
          </a>
        </p>
      ) : (
        <p className="muted">Connect your {what} account from your customer portal.</p>
      );
    }
    default:
      return g.benefit.properties?.note ? <p>{g.benefit.properties.note}</p> : null;
  }
}

function LicenseKey({ value }: { value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="license">
      <code data-testid="license-key">{value}</code>
      <button
        type="button"
        className="secondary"
        onClick={() =>
          void navigator.clipboard.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? "Copied" : "Copy"}
      </button>
      <span className="sr-only" aria-live="polite">
        {copied ? "License key copied" : ""}
      </span>
    </div>
  );
}
