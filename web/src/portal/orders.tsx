// The customer's orders in the portal: date, item, total and status, and for a paid order its
// receipt and its invoice as PDFs (signed links the server makes on demand). An invoice not made
// yet first asks for the details it is made out to. A refusal is said above the table.
import { Fragment, useEffect, useRef, useState } from "react";
import { money } from "../checkout/format.ts";
import { type Order, type PortalApi, PortalApiError } from "./api.ts";
import { day } from "./dates.ts";
import { InvoiceForm } from "./invoice-form.tsx";

const PAID = new Set(["paid", "refunded", "partially_refunded"]);
const COLUMNS = ["Date", "Item", "Total", "Status", "Documents"];
/** An order's status in the buyer's words; a pending one is a payment still due. */
const STATUS: Record<string, string> = {
  paid: "Paid",
  pending: "Payment due",
  refunded: "Refunded",
  partially_refunded: "Partially refunded",
  void: "Void",
};

/** Saves the PDF behind a same-origin signed link as a file rather than opening it. */
function download(url: string, name: string) {
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
}

export function OrdersSection(props: { api: PortalApi; orders: Order[] }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [invoicing, setInvoicing] = useState<string | null>(null);
  // Invoices made on this page: the order list loaded before them still says "not generated".
  const [generated, setGenerated] = useState<Set<string>>(() => new Set());
  // The invoice form goes away with the button pressed in it: focus returns to the order's Invoice.
  const tableRef = useRef<HTMLTableElement>(null);
  const [refocus, setRefocus] = useState<string | null>(null);
  useEffect(() => {
    if (!refocus) return;
    tableRef.current
      ?.querySelector<HTMLButtonElement>(`tr[data-order="${CSS.escape(refocus)}"] button.invoice`)
      ?.focus();
    setRefocus(null);
  }, [refocus]);
  const closeInvoice = (id: string) => {
    setInvoicing(null);
    setRefocus(id);
  };
  async function open(id: string, what: string, fn: () => Promise<void>) {
    setBusy(id);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(
        err instanceof PortalApiError ? err.message : `The ${what} could not be opened. Try again.`,
      );
    } finally {
      setBusy(null);
    }
  }
  const openReceipt = (id: string) =>
    open(id, "receipt", async () => window.location.assign((await props.api.receipt(id)).url));
  const downloadInvoice = (o: Order) =>
    open(o.id, "invoice", async () =>
      download((await props.api.invoice(o.id)).url, `invoice-${o.invoice_number ?? o.id}.pdf`),
    );
  const label = (what: string, o: Order) => `${what} for ${o.description}, ${day(o.created_at)}`;
  const documents = (o: Order) => (
    <span className="documents">
      <button
        type="button"
        className="receipt"
        aria-label={label("Receipt", o)}
        // Not `disabled`: a disabled button drops the focus the buyer pressed it with.
        aria-disabled={busy === o.id}
        onClick={() => busy === o.id || void openReceipt(o.id)}
      >
        Receipt
      </button>
      <button
        type="button"
        className="invoice"
        aria-label={label("Invoice", o)}
        aria-expanded={
          o.is_invoice_generated || generated.has(o.id) ? undefined : invoicing === o.id
        }
        aria-disabled={busy === o.id}
        onClick={() =>
          busy === o.id
            ? undefined
            : o.is_invoice_generated || generated.has(o.id)
              ? void downloadInvoice(o)
              : setInvoicing(invoicing === o.id ? null : o.id)
        }
      >
        Invoice
      </button>
    </span>
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
        <table className="orders" ref={tableRef}>
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
              <Fragment key={o.id}>
                <tr data-order={o.id}>
                  <td>{day(o.created_at)}</td>
                  <td>{o.description}</td>
                  <td>{money(o.total_amount, o.currency)}</td>
                  <td>{STATUS[o.status] ?? o.status}</td>
                  <td>{PAID.has(o.status) ? documents(o) : null}</td>
                </tr>
                {invoicing === o.id ? (
                  <tr className="invoice-row">
                    <td colSpan={COLUMNS.length}>
                      <InvoiceForm
                        api={props.api}
                        order={o}
                        onCancel={() => closeInvoice(o.id)}
                        onGenerated={async () => {
                          setGenerated((g) => new Set(g).add(o.id));
                          closeInvoice(o.id);
                          await downloadInvoice(o);
                        }}
                      />
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
