// One product: its prices and benefits, and the ways to sell it — a checkout session to open now,
// or a reusable checkout link with the snippet that embeds it on the seller's site.
import { useState } from "react";
import { api, useApi, withQuery, type Page } from "../api.ts";
import { useOrg } from "../auth.ts";
import type { Benefit, Checkout, CheckoutLink, Product } from "../types.ts";
import {
  Badge,
  CopyButton,
  ErrorNote,
  Link,
  PageHeader,
  Resource,
  money,
  submit,
  useAction,
} from "../ui.tsx";
import { EditProduct } from "./product-edit.tsx";
import { priceLabel } from "./products.tsx";

export function embedSnippet(url: string): string {
  return `<a href="${url}" data-till-checkout>Buy</a><script src="${location.origin}/embed.js"></script>`;
}

function Sell({ product }: { product: Product }) {
  const action = useAction();
  const [checkout, setCheckout] = useState<Checkout | null>(null);
  const [link, setLink] = useState<CheckoutLink | null>(null);
  return (
    <section className="card stack">
      <h2>Sell it</h2>
      <div className="actions">
        <button
          type="button"
          className="primary"
          disabled={action.busy}
          onClick={() =>
            void action.run(async () =>
              setCheckout(await api.post<Checkout>("/v1/checkouts/", { products: [product.id] })),
            )
          }
        >
          Create checkout
        </button>
        <button
          type="button"
          className="secondary"
          disabled={action.busy}
          onClick={() =>
            void action.run(async () =>
              setLink(
                await api.post<CheckoutLink>("/v1/checkout-links/", {
                  products: [product.id],
                  payment_processor: "stripe",
                }),
              ),
            )
          }
        >
          Create checkout link
        </button>
      </div>
      <ErrorNote error={action.error} />
      {checkout ? (
        <div className="result">
          <p>
            Checkout ready:{" "}
            <a href={checkout.url} target="_blank" rel="noreferrer" className="checkout-url">
              {checkout.url}
            </a>{" "}
            <CopyButton text={checkout.url} />
          </p>
          <p className="muted">
            A checkout session is for one customer and expires; share a checkout link for a page
            that lasts.
          </p>
        </div>
      ) : null}
      {link ? (
        <div className="result">
          <p>
            Link:{" "}
            <a href={link.url} target="_blank" rel="noreferrer">
              {link.url}
            </a>{" "}
            <CopyButton text={link.url} />
          </p>
          <p className="muted">Paste this on your site to open the checkout as an overlay:</p>
          <div className="command">
            <code>{embedSnippet(link.url)}</code>
            <CopyButton text={embedSnippet(link.url)} label="Copy embed snippet" />
          </div>
        </div>
      ) : null}
    </section>
  );
}

function Benefits({ product, onChange }: { product: Product; onChange: () => void }) {
  const org = useOrg();
  const all = useApi<Page<Benefit>>(
    withQuery("/v1/benefits/", { organization_id: org.id, limit: 100 }),
  );
  const action = useAction();
  const attached = new Set(product.benefits.map((b) => b.id));
  const setBenefits = (ids: string[]) =>
    action.run(async () => {
      await api.post(`/v1/products/${product.id}/benefits`, { benefits: ids });
      return onChange();
    });
  const addCustom = submit((data, form) =>
    action.run(async () => {
      const benefit = await api.post<Benefit>("/v1/benefits/", {
        type: "custom",
        organization_id: org.id,
        description: String(data.get("description")),
        properties: { note: null },
      });
      await api.post(`/v1/products/${product.id}/benefits`, {
        benefits: [...attached, benefit.id],
      });
      form.reset();
      all.reload();
      onChange();
    }),
  );
  return (
    <section className="card stack">
      <h2>Benefits</h2>
      {product.benefits.length === 0 ? (
        <p className="muted">No benefits yet. Customers get what you attach here when they buy.</p>
      ) : null}
      <ul className="list">
        {product.benefits.map((b) => (
          <li key={b.id}>
            <Badge>{b.type.replace("_", " ")}</Badge> {b.description}
            <button
              type="button"
              className="ghost small"
              onClick={() => void setBenefits([...attached].filter((id) => id !== b.id))}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      <Resource loaded={all} what="Benefits">
        {(page) => {
          const free = page.items.filter((b) => !attached.has(b.id));
          return free.length > 0 ? (
            <label className="field">
              <span>Attach an existing benefit</span>
              <select
                value=""
                onChange={(e) => e.target.value && void setBenefits([...attached, e.target.value])}
              >
                <option value="">Choose…</option>
                {free.map((b) => (
                  <option key={b.id} value={b.id}>
                    {b.description} ({b.type})
                  </option>
                ))}
              </select>
            </label>
          ) : null;
        }}
      </Resource>
      <form className="row" onSubmit={addCustom}>
        <label className="field grow">
          <span>New custom benefit</span>
          <input name="description" required minLength={3} placeholder="Priority support" />
        </label>
        <button type="submit" className="secondary" disabled={action.busy}>
          Add
        </button>
      </form>
      <ErrorNote error={action.error} />
      <p className="muted small-text">
        Discord roles, repository access, files, license keys and meter credits are created on the{" "}
        <Link to="/benefits">Benefits</Link> page, then attached here.
      </p>
    </section>
  );
}

export function ProductDetailPage({ id }: { id: string }) {
  const product = useApi<Product>(`/v1/products/${id}`);
  const action = useAction();
  const [editing, setEditing] = useState(false);
  return (
    <Resource loaded={product} what="Product">
      {(p) => (
        <>
          <p className="crumbs">
            <Link to="/products">Products</Link> /
          </p>
          <PageHeader title={p.name}>
            <button
              type="button"
              className="secondary"
              disabled={editing}
              onClick={() => setEditing(true)}
            >
              Edit
            </button>
            <button
              type="button"
              className="ghost"
              disabled={action.busy}
              onClick={() =>
                void action.run(async () => {
                  await api.patch(`/v1/products/${p.id}`, { is_archived: !p.is_archived });
                  return product.reload();
                })
              }
            >
              {p.is_archived ? "Unarchive" : "Archive"}
            </button>
          </PageHeader>
          <ErrorNote error={action.error} />
          {p.is_archived ? (
            <p className="muted">
              Archived: it is not sold any more; unarchive it to sell it again.
            </p>
          ) : null}
          {editing ? (
            <EditProduct
              product={p}
              onDone={() => {
                setEditing(false);
                product.reload();
              }}
            />
          ) : null}
          {p.description ? <p className="lead">{p.description}</p> : null}
          <div className="grid two">
            <section className="card stack">
              <h2>Prices</h2>
              <p className="big-number">{priceLabel(p)}</p>
              <ul className="list">
                {p.prices.map((price) => (
                  <li key={price.id}>
                    {price.amount_type === "fixed"
                      ? money(price.price_amount, price.price_currency)
                      : price.amount_type}{" "}
                    {price.is_archived ? <Badge tone="warn">archived</Badge> : null}
                    <code className="muted small-text">{price.id}</code>
                  </li>
                ))}
              </ul>
              <p className="muted small-text">
                Product id <code>{p.id}</code> <CopyButton text={p.id} label="Copy product id" />
              </p>
            </section>
            <Sell product={p} />
          </div>
          <Benefits product={p} onChange={product.reload} />
        </>
      )}
    </Resource>
  );
}
