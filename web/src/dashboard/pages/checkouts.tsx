// Checkout sessions (one customer each) and checkout links (shareable, embeddable).
import { api, useApi, withQuery, type Page } from "../api.ts";
import { useOrg } from "../auth.ts";
import type { Checkout, CheckoutLink } from "../types.ts";
import {
  Badge,
  CopyButton,
  Empty,
  ErrorNote,
  Link,
  PageHeader,
  Resource,
  Table,
  money,
  useAction,
  when,
} from "../ui.tsx";
import { embedSnippet } from "./product-detail.tsx";

const STATUS_TONE: Record<string, "good" | "warn" | "bad" | "neutral"> = {
  succeeded: "good",
  confirmed: "good",
  open: "neutral",
  expired: "warn",
  failed: "bad",
};

export function CheckoutsPage() {
  const org = useOrg();
  const checkouts = useApi<Page<Checkout>>(
    withQuery("/v1/checkouts/", { organization_id: org.id, limit: 50, sorting: "-created_at" }),
  );
  const links = useApi<Page<CheckoutLink>>(
    withQuery("/v1/checkout-links/", {
      organization_id: org.id,
      limit: 100,
      sorting: "-created_at",
    }),
  );
  const action = useAction();
  return (
    <>
      <PageHeader title="Checkouts" />
      <p className="muted">
        Create a checkout or a link from a <Link to="/products">product's page</Link>.
      </p>
      <h2>Checkout links</h2>
      <ErrorNote error={action.error} />
      <Resource loaded={links} what="Checkout links">
        {(page) =>
          page.items.length === 0 ? (
            <Empty title="No checkout links yet">
              <p className="muted">
                A link is a checkout page that stays: share it, or embed it on your site as an
                overlay.
              </p>
            </Empty>
          ) : (
            <Table
              rows={page.items}
              columns={[
                ["Products", (l) => l.label ?? l.products.map((p) => p.name).join(", ")],
                [
                  "URL",
                  (l) => (
                    <a href={l.url} target="_blank" rel="noreferrer" className="mono-link">
                      {l.url.replace(/^https?:\/\//, "")}
                    </a>
                  ),
                ],
                [
                  "Embed",
                  (l) => <CopyButton text={embedSnippet(l.url)} label="Copy embed snippet" />,
                ],
                [
                  "",
                  (l) => (
                    <button
                      type="button"
                      className="ghost small"
                      onClick={() =>
                        void action.run(async () => {
                          await api.del(`/v1/checkout-links/${l.id}`);
                          return links.reload();
                        })
                      }
                    >
                      Delete
                    </button>
                  ),
                ],
              ]}
            />
          )
        }
      </Resource>
      <h2>Recent checkouts</h2>
      <Resource loaded={checkouts} what="Checkouts">
        {(page) =>
          page.items.length === 0 ? (
            <Empty title="No checkouts yet" command="till checkouts create --product <id> --open" />
          ) : (
            <Table
              rows={page.items}
              columns={[
                ["Product", (c) => c.product?.name ?? "—"],
                [
                  "Status",
                  (c) => <Badge tone={STATUS_TONE[c.status] ?? "neutral"}>{c.status}</Badge>,
                ],
                ["Total", (c) => money(c.total_amount, c.currency)],
                ["Customer", (c) => c.customer_email ?? <span className="muted">—</span>],
                ["Created", (c) => <span className="muted">{when(c.created_at)}</span>],
                [
                  "",
                  (c) =>
                    c.status === "open" ? (
                      <a href={c.url} target="_blank" rel="noreferrer">
                        Open
                      </a>
                    ) : null,
                ],
              ]}
            />
          )
        }
      </Resource>
    </>
  );
}
