// Webhook deliveries from till: the Standard Webhooks signature is verified over the raw body with
// the endpoint's secret (whsec_…), then the payload goes to `onPayload` and to the handler named
// after its type (order.paid → onOrderPaid, benefit_grant.created → onBenefitGrantCreated).
import { Webhook } from "standardwebhooks";

// The plugin handles exactly the event types the server sends: one list, kept by the server.
import {
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from "../../server/modules/webhooks/events.ts";

export { WEBHOOK_EVENT_TYPES, type WebhookEventType };

type Pascal<S extends string> = S extends `${infer A}_${infer B}`
  ? `${Capitalize<A>}${Pascal<B>}`
  : Capitalize<S>;
type HandlerName<T extends string> = T extends `${infer A}.${infer B}`
  ? `on${Pascal<A>}${Pascal<B>}`
  : never;

export interface WebhookPayload<T extends string = WebhookEventType> {
  type: T;
  timestamp: string;
  /** The resource as till's REST API renders it (Polar's schema for that event). */
  data: Record<string, unknown>;
}
export type WebhookHandler<T extends string = WebhookEventType> = (
  payload: WebhookPayload<T>,
) => unknown;

export type WebhookHandlers = { [T in WebhookEventType as HandlerName<T>]?: WebhookHandler<T> } & {
  /** Every verified delivery, whatever its type (also types this list does not know yet). */
  onPayload?: WebhookHandler<string>;
};

export interface WebhookOptions extends WebhookHandlers {
  /** The webhook endpoint's signing secret from till (whsec_…). */
  secret: string;
}

export function handlerNameOf(type: string): string {
  const [resource = "", action = ""] = type.split(".");
  const pascal = (s: string) =>
    s
      .split("_")
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join("");
  return `on${pascal(resource)}${pascal(action)}`;
}

export class WebhookVerificationError extends Error {}

/** Verifies a delivery and returns its payload; throws WebhookVerificationError when it is not genuine. */
export function verifyWebhook(
  secret: string,
  body: string,
  headers: {
    "webhook-id": string | null;
    "webhook-timestamp": string | null;
    "webhook-signature": string | null;
  },
): WebhookPayload<string> {
  if (!headers["webhook-id"] || !headers["webhook-timestamp"] || !headers["webhook-signature"])
    throw new WebhookVerificationError("Missing webhook headers");
  try {
    return new Webhook(secret).verify(
      body,
      headers as Record<string, string>,
    ) as WebhookPayload<string>;
  } catch (err) {
    throw new WebhookVerificationError(err instanceof Error ? err.message : String(err));
  }
}

export async function dispatchWebhook(
  payload: WebhookPayload<string>,
  handlers: WebhookHandlers,
): Promise<void> {
  const named = (handlers as Record<string, WebhookHandler<string> | undefined>)[
    handlerNameOf(payload.type)
  ];
  await Promise.all([handlers.onPayload?.(payload), named?.(payload)]);
}
