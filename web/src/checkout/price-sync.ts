// The amount and the country move the total (a pay-what-you-want amount, the country's tax): the
// session hears of them a moment after typing stops, so the summary and the Pay button show what
// confirm will charge. A newer change, or paying, makes an older answer stale: whoever sends one
// takes the next number of the returned counter.
import { type Dispatch, type RefObject, useEffect, useRef } from "react";
import { checkoutApi } from "./api.ts";
import { type Action, priceChange, type State } from "./state.ts";

const QUIET_MS = 400;

export function usePriceSync(
  state: State,
  secret: string,
  dispatch: Dispatch<Action>,
): RefObject<number> {
  const pending = state.kind === "ready" ? priceChange(state.checkout, state.values) : null;
  const pendingKey = pending ? JSON.stringify(pending) : null;
  const seqRef = useRef(0);
  useEffect(() => {
    if (!pendingKey) return;
    const seq = ++seqRef.current;
    const timer = setTimeout(() => {
      checkoutApi.update(secret, JSON.parse(pendingKey) as object).then(
        (updated) => {
          if (seq === seqRef.current) dispatch({ type: "repriced", checkout: updated });
        },
        // A refused amount shows when paying, by the form's own check or the server's.
        () => undefined,
      );
    }, QUIET_MS);
    return () => clearTimeout(timer);
  }, [pendingKey, secret, dispatch]);
  return seqRef;
}
