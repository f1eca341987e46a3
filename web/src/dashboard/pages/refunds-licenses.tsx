// Refunds and license keys. Both are Polar v1 APIs; a server that does not serve them yet answers
// 404, shown as "not available" rather than an error.
import { useApi, withQuery, type Page } from "../api.ts";
import { useOrg } from "../auth.ts";
import type { LicenseKey, Refund } from "../types.ts";
import { Badge, Empty, PageHeader, Resource, Table, money, when } from "../ui.tsx";

export function RefundsPage() {
  const org = useOrg();
  const refunds = useApi<Page<Refund>>(
    withQuery("/v1/refunds/", { organization_id: org.id, limit: 100, sorting: "-created_at" }),
  );
  return (
    <>
      <PageHeader title="Refunds" />
      <Resource loaded={refunds} what="Refunds">
        {(page) =>
          page.items.length === 0 ? (
            <Empty
              title="No refunds"
              command="till refunds create --order <order-id> --reason customer_request"
            >
              <p className="muted">Refund a paid order, in full or in part.</p>
            </Empty>
          ) : (
            <Table
              rows={page.items}
              columns={[
                ["Amount", (r) => money(r.amount, r.currency)],
                [
                  "Status",
                  (r) => (
                    <Badge
                      tone={
                        r.status === "succeeded"
                          ? "good"
                          : r.status === "failed"
                            ? "bad"
                            : "neutral"
                      }
                    >
                      {r.status}
                    </Badge>
                  ),
                ],
                ["Reason", (r) => r.reason.replace(/_/g, " ")],
                ["Order", (r) => <code>{r.order_id.slice(0, 8)}</code>],
                ["Date", (r) => <span className="muted">{when(r.created_at)}</span>],
              ]}
            />
          )
        }
      </Resource>
    </>
  );
}

export function LicenseKeysPage() {
  const org = useOrg();
  const keys = useApi<Page<LicenseKey>>(
    withQuery("/v1/license-keys/", { organization_id: org.id, limit: 100 }),
  );
  return (
    <>
      <PageHeader title="License keys" />
      <Resource loaded={keys} what="License keys">
        {(page) =>
          page.items.length === 0 ? (
            <Empty
              title="No license keys yet"
              command="till benefits create --type license_keys --description 'License key' --property prefix=KEY"
            >
              <p className="muted">
                Attach a license-key benefit to a product; each buyer gets a key.
              </p>
            </Empty>
          ) : (
            <Table
              rows={page.items}
              columns={[
                ["Key", (k) => <code>{k.display_key}</code>],
                ["Customer", (k) => k.customer.email],
                [
                  "Status",
                  (k) => <Badge tone={k.status === "granted" ? "good" : "warn"}>{k.status}</Badge>,
                ],
                ["Usage", (k) => `${k.usage}${k.limit_usage ? ` / ${k.limit_usage}` : ""}`],
                ["Validations", (k) => k.validations],
                ["Expires", (k) => <span className="muted">{when(k.expires_at)}</span>],
              ]}
            />
          )
        }
      </Resource>
    </>
  );
}
