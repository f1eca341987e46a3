// The floor under bench/renewals.ts: the rows the engine wrote for its renewals (each renewal's
// order, order item, payment, period move and webhook events, copied from the engine's own rows
// and payloads) written again for every subscription as plain multi-row statements, in pages and
// lanes as the engine works, with no reads, charges, rendering or jobs. No renewal engine that
// writes those rows can be faster than this on the same machine. Written again with each event's
// payload `{}` (`events: "stub"`), and with no event at all (`"none"`), it shows what the rows cost
// apart from Polar's payloads and from the outbox.
import { randomUUID } from "node:crypto";
import postgres from "postgres";

const SEPARATOR = "\u0001";

export async function writeFloor(
  url: string,
  o: {
    organizationId: string;
    /** When the engine started and ended: its events are those recorded in between. */
    since: Date;
    until: Date;
    pageSize: number;
    lanes: number;
    events?: "polar" | "stub" | "none";
  },
): Promise<{ ms: number; renewals: number; eventsPerRenewal: number; payloadBytes: number }> {
  const pg = postgres(url, { max: o.lanes, onnotice: () => {} });
  try {
    // One renewal's rows as the engine wrote them: a cycle order with its item and payment, and
    // the events recorded since the engine started, averaged per renewal.
    const [order] = await pg`
      select row_to_json(o)::text as j from orders o
      where organization_id = ${o.organizationId} and billing_reason = 'subscription_cycle'
      limit 1`;
    const template = JSON.parse(order!.j) as Record<string, unknown>;
    const [item] = await pg`select row_to_json(i)::text as j from order_items i
      where order_id = ${template.id as string}`;
    const [payment] = await pg`select row_to_json(p)::text as j from payments p
      where order_id = ${template.id as string}`;
    const renewals = await pg`select id, customer_id from subscriptions
      where organization_id = ${o.organizationId} order by id`;
    const [count] = await pg`select count(*)::int as n from webhook_events
      where organization_id = ${o.organizationId} and created_at >= ${o.since}
        and created_at <= ${o.until}`;
    const perRenewal = Math.ceil((count!.n as number) / renewals.length);
    const mode = o.events ?? "polar";
    const recorded = await pg`select type, payload::text as payload,
        dispatched_at is not null as dispatched from webhook_events
      where organization_id = ${o.organizationId} and created_at >= ${o.since}
      order by seq limit ${perRenewal}`;
    const events =
      mode === "none" ? [] : recorded.map((e) => (mode === "stub" ? { ...e, payload: "{}" } : e));
    const payloadBytes = events.reduce((sum, e) => sum + Buffer.byteLength(e.payload), 0);
    const itemRow = JSON.parse(item!.j) as Record<string, unknown>;
    const paymentRow = JSON.parse(payment!.j) as Record<string, unknown>;
    for (const row of [template, itemRow, paymentRow]) delete row.id;

    // Each writing of the floor its own keys: the bench writes it more than once.
    const run = randomUUID();
    const pages: { id: string; customer_id: string }[][] = [];
    for (let i = 0; i < renewals.length; i += o.pageSize)
      pages.push(renewals.slice(i, i + o.pageSize) as never);
    const t0 = performance.now();
    const lane = async () => {
      for (let page = pages.shift(); page; page = pages.shift()) {
        await pg.begin(async (tx) => {
          const orders = page.map((s) => ({
            ...template,
            id: randomUUID(),
            subscription_id: s.id,
            customer_id: s.customer_id,
            billing_key: `floor:${run}:${s.id}`,
            invoice_number: null,
          }));
          await tx`insert into orders
            select * from json_populate_recordset(null::orders, ${JSON.stringify(orders)}::text::json)`;
          const items = orders.map((x) => ({ ...itemRow, id: randomUUID(), order_id: x.id }));
          await tx`insert into order_items
            select * from json_populate_recordset(null::order_items, ${JSON.stringify(items)}::text::json)`;
          const payments = orders.map((x) => ({
            ...paymentRow,
            id: randomUUID(),
            order_id: x.id,
            idempotency_key: `floor:${run}:${x.id}`,
          }));
          await tx`insert into payments
            select * from json_populate_recordset(null::payments, ${JSON.stringify(payments)}::text::json)`;
          await tx`update subscriptions s set current_period_start = current_period_end,
              current_period_end = current_period_end + interval '1 month',
              next_action_at = current_period_end + interval '1 month', modified_at = now()
            where s.id = any(${page.map((s) => s.id)}::uuid[])`;
          if (events.length === 0) return;
          const types = page.flatMap(() => events.map((e) => e.type));
          const payloads = page.flatMap(() => events.map((e) => e.payload));
          // An event the engine recorded already dispatched (no endpoint takes it) goes in so too.
          const dispatched = `{${page.flatMap(() => events.map((e) => (e.dispatched ? "t" : "f"))).join(",")}}`;
          await tx`insert into webhook_events (organization_id, type, payload, dispatched_at)
            select ${o.organizationId}::uuid, t, p::json, case when d then now() end
            from unnest(string_to_array(${types.join(SEPARATOR)}::text, ${SEPARATOR}),
                        string_to_array(${payloads.join(SEPARATOR)}::text, ${SEPARATOR}),
                        ${dispatched}::boolean[])
              with ordinality as r(t, p, d, n)
            order by n`;
        });
      }
    };
    await Promise.all(Array.from({ length: o.lanes }, lane));
    return {
      ms: performance.now() - t0,
      renewals: renewals.length,
      eventsPerRenewal: events.length,
      payloadBytes,
    };
  } finally {
    await pg.end();
  }
}
