// The customer's orders in the portal: date, item, total and status, and for a paid order its
// receipt as a PDF (a signed link the server makes on demand). A refusal is said above the table.
import { useState } from "react";
import { money } from "../checkout/format.ts";
import { type Order, type PortalApi, PortalApiError } from "./api.ts";
import { day } from "./dates.ts";

const PAID = new Set(["paid", "refunded", "partially_refunded"]);
const COLUMNS = ["Date", "Item", "Total", "Status", "Receipt"];

export function OrdersSection(props: { api: PortalApi; orders: Order[] }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  async function openReceipt(id: string) {
    setBusy(id);
    setError(null);
    try {
      window.location.assign((await props.api.receipt(id)).url);
    } catch (err) {
      setError(
        err instanceof PortalApiError ? err.message : "The receipt could not be opened. Try again.",
      );
    } finally {
      setBusy(null);
    }
  }
  const receiptButton = (o: Order) => (
    <button
      type="button"
      className="receipt"
      aria-label={`Receipt for ${o.description}, ${day(o.created_at)}`}
      disabled={busy === o.id}
      onClick={() => void openReceipt(o.id)}
    >
      Receipt
    </button>
  );
  return (
    <section aria-labelledby="orders-h">
      <h2 id="orders-h">Orders</h2>
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
      {props.orders.length === 0 ? (
        <p className="muted">No orders.</p>
      ) : (
        <table className="orders">
          <thead>
            <tr>
              {COLUMNS.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.orders.map((o) => (
              <tr key={o.id} data-order={o.id}>
                <td>{day(o.created_at)}</td>
                <td>{o.description}</td>
                <td>{money(o.total_amount, o.currency)}</td>
                <td>{o.status}</td>
                <td>{PAID.has(o.status) ? receiptButton(o) : null}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
