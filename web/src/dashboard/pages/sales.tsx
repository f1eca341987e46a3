// Orders (with a refund action) and subscriptions (cancel at period end, uncancel, revoke now).
import { useState } from "react";
import { api, useApi, withQuery, type Page } from "../api.ts";
import { useOrg } from "../auth.ts";
import type { Order, Subscription } from "../types.ts";
import {
  Badge,
  Empty,
  ErrorNote,
  PageHeader,
  Resource,
  Table,
  money,
  useAction,
  when,
} from "../ui.tsx";
import { RefundForm, refundable } from "./refund-form.tsx";

export function OrdersPage() {
  const org = useOrg();
  const orders = useApi<Page<Order>>(
    withQuery("/v1/orders/", { organization_id: org.id, limit: 100, sorting: "-created_at" }),
  );
  const [refunding, setRefunding] = useState<Order | null>(null);
  return (
    <>
      <PageHeader title="Orders" />
      {refunding ? (
        <RefundForm
          key={refunding.id}
          order={refunding}
          onCancel={() => setRefunding(null)}
          onDone={() => {
            setRefunding(null);
            orders.reload();
          }}
        />
      ) : null}
      <Resource loaded={orders} what="Orders">
        {(page) =>
          page.items.length === 0 ? (
            <Empty title="No orders yet" command="till checkouts create --product <id> --open">
              <p className="muted">
                Orders appear when a customer pays. Try it: open a checkout and pay with the sandbox
                card 4242 4242 4242 4242.
              </p>
            </Empty>
          ) : (
            <Table
              rows={page.items}
              columns={[
                ["Description", (o) => o.description || o.product?.name || "—"],
                ["Customer", (o) => o.customer.email],
                ["Total", (o) => money(o.total_amount, o.currency)],
                [
                  "Status",
                  (o) => (
                    <Badge
                      tone={
                        o.status === "paid"
                          ? "good"
                          : o.status.includes("refunded")
                            ? "warn"
                            : "neutral"
                      }
                    >
                      {o.status.replace("_", " ")}
                    </Badge>
                  ),
                ],
                [
                  "Reason",
                  (o) => <span className="muted">{o.billing_reason.replace("_", " ")}</span>,
                ],
                ["Date", (o) => <span className="muted">{when(o.created_at)}</span>],
                [
                  "Actions",
                  (o) =>
                    refundable(o) > 0 && o.status !== "pending" ? (
                      <button type="button" className="ghost small" onClick={() => setRefunding(o)}>
                        Refund<span className="sr-only"> {o.customer.email}'s order</span>
                      </button>
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

function SubscriptionActions({
  s,
  onChange,
  run,
}: {
  s: Subscription;
  onChange: () => void;
  run: (fn: () => Promise<unknown>) => Promise<boolean>;
}) {
  if (s.status === "canceled" || s.status === "incomplete_expired") return null;
  const patch = (body: object) =>
    run(async () => {
      await api.patch(`/v1/subscriptions/${s.id}`, body);
      return onChange();
    });
  const revoke = () => {
    if (
      !window.confirm(
        `End ${s.customer.email}'s subscription now? Their benefits are revoked at once.`,
      )
    )
      return;
    void run(async () => {
      await api.del(`/v1/subscriptions/${s.id}`);
      return onChange();
    });
  };
  return (
    <div className="actions">
      {s.cancel_at_period_end ? (
        <button
          type="button"
          className="ghost small"
          onClick={() => void patch({ cancel_at_period_end: false })}
        >
          Uncancel
        </button>
      ) : (
        <button
          type="button"
          className="ghost small"
          onClick={() => void patch({ cancel_at_period_end: true })}
        >
          Cancel at period end
        </button>
      )}
      <button type="button" className="ghost small danger" onClick={revoke}>
        Revoke
      </button>
    </div>
  );
}

export function SubscriptionsPage() {
  const org = useOrg();
  const subs = useApi<Page<Subscription>>(
    withQuery("/v1/subscriptions/", {
      organization_id: org.id,
      limit: 100,
      sorting: "-started_at",
    }),
  );
  const action = useAction();
  return (
    <>
      <PageHeader title="Subscriptions" />
      <ErrorNote error={action.error} />
      <Resource loaded={subs} what="Subscriptions">
        {(page) =>
          page.items.length === 0 ? (
            <Empty
              title="No subscriptions yet"
              command="till products create --name Pro --price 1500 --recurring month"
            >
              <p className="muted">Subscriptions start when a customer buys a recurring product.</p>
            </Empty>
          ) : (
            <Table
              rows={page.items}
              columns={[
                ["Customer", (s) => s.customer.email],
                ["Product", (s) => s.product.name],
                ["Amount", (s) => `${money(s.amount, s.currency)} / ${s.recurring_interval}`],
                [
                  "Status",
                  (s) =>
                    s.cancel_at_period_end ? (
                      <Badge tone="warn">cancels {when(s.current_period_end)}</Badge>
                    ) : (
                      <Badge tone={s.status === "active" ? "good" : "neutral"}>{s.status}</Badge>
                    ),
                ],
                [
                  "Renews",
                  (s) => (
                    <span className="muted">
                      {s.status === "active" && !s.cancel_at_period_end
                        ? when(s.current_period_end)
                        : "—"}
                    </span>
                  ),
                ],
                ["", (s) => <SubscriptionActions s={s} onChange={subs.reload} run={action.run} />],
              ]}
            />
          )
        }
      </Resource>
    </>
  );
}
