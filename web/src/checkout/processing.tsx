// A checkout whose payment is already under way: opened again mid-payment (a reload, the back
// button, another tab), it waits for the payment to settle instead of offering the form, then goes
// on to the confirmation, or back to the form when the payment did not go through.
import { type Dispatch, useEffect } from "react";
import { Bar } from "./chrome.tsx";
import { settle } from "./finish.ts";
import type { Action } from "./state.ts";
import type { Checkout } from "./types.ts";

export const NOT_CHARGED =
  "The payment did not go through and nothing was charged. Check your details and pay again.";

export function useSettling(
  checkout: Checkout | null,
  secret: string,
  dispatch: Dispatch<Action>,
): void {
  useEffect(() => {
    if (!checkout) return;
    let gone = false;
    settle(secret, checkout).then(
      (final) => {
        if (gone) return;
        dispatch({ type: "loaded", checkout: final });
        if (final.status === "open")
          dispatch({ type: "invalid", errors: {}, general: NOT_CHARGED });
      },
      // Offline meanwhile: the buyer is told to reload, which asks again.
      () => undefined,
    );
    return () => {
      gone = true;
    };
  }, [checkout, secret, dispatch]);
}

export function Processing(props: { checkout: Checkout }) {
  return (
    <main className="checkout">
      <Bar name={props.checkout.organization.name} onClose={null} closable={false} />
      <section className="notice" role="status" aria-live="polite">
        <h1>Your payment is being processed</h1>
        <p>
          This page goes on to your order once the payment is through. Do not pay again. If it takes
          more than a few minutes, reload this page.
        </p>
      </section>
    </main>
  );
}
