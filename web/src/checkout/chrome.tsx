// The checkout's frame: the bar with the seller's name and the overlay's close button, the
// skeleton shown while the session loads, and what a session that cannot be used says.
import { type CheckoutApiError, LOST_CONNECTION } from "./api.ts";
import type { Action } from "./state.ts";

export function Bar(props: {
  name: string | null;
  closable: boolean;
  onClose: (() => void) | null;
}) {
  return (
    <header className="bar">
      <span className="org">{props.name}</span>
      {props.onClose ? (
        <button
          type="button"
          className="close"
          aria-label="Close checkout"
          onClick={props.onClose}
          disabled={!props.closable}
        >
          ×
        </button>
      ) : null}
    </header>
  );
}

/** The page's shape while it loads, so nothing jumps when the checkout arrives. */
export function Skeleton() {
  return (
    <main className="checkout" aria-busy="true">
      <header className="bar">
        <span className="org" />
      </header>
      <div className="columns">
        <section className="summary skeleton" aria-label="Order summary">
          <p className="sr-only">Loading checkout…</p>
          <div className="block" style={{ height: 28, width: "60%" }} />
          <div className="block" style={{ height: 36, width: "40%" }} />
          <div className="block" style={{ height: 120 }} />
        </section>
        <div className="skeleton form-skeleton">
          <div className="block" style={{ height: 62 }} />
          <div className="block" style={{ height: 62 }} />
          <div className="block" style={{ height: 160 }} />
          <div className="block" style={{ height: 44 }} />
        </div>
      </div>
    </main>
  );
}

export const EXPIRED = {
  title: "This checkout has expired",
  message: "Nothing was charged. Go back to the store to start again.",
};

export const REFUSED = {
  title: "This checkout cannot be opened here",
  message: "The seller has not allowed this site to show it. Nothing was charged.",
};

export function unavailable(e: unknown): Action {
  const err = e as CheckoutApiError;
  if (err.status === 410) return { type: "unavailable", ...EXPIRED };
  if (err.status === 404)
    return {
      type: "unavailable",
      title: "Checkout not found",
      message: "This link is not valid. Go back to the store to start again.",
    };
  return {
    type: "unavailable",
    title: "The checkout could not be loaded",
    message: err.status === 0 ? LOST_CONNECTION : err.message,
  };
}
