// till for better-auth: `till(...)` on the server, `tillClient()` in the browser (import it from
// ./client.ts so the server code stays out of client bundles).
export {
  till,
  checkoutInput,
  type CheckoutInput,
  type TillPluginOptions,
  type TillProductSlug,
} from "./server.ts";
export { createTillApi, TillApiError, type TillApi, type TillApiOptions } from "./till-api.ts";
export {
  WEBHOOK_EVENT_TYPES,
  dispatchWebhook,
  handlerNameOf,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEventType,
  type WebhookHandlers,
  type WebhookOptions,
  type WebhookPayload,
} from "./webhooks.ts";
