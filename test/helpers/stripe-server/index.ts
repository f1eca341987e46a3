// A local stand-in for the part of Stripe's REST API till uses, driven by the official `stripe` SDK
// (`new Stripe(key, {host, port, protocol: "http"})`): form-encoded requests, Stripe's error
// shape, Idempotency-Key semantics (same key and parameters replay; other parameters are a 400
// idempotency_error), and signed webhook events delivered to a configured endpoint.
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Stripe } from "stripe";
import { StripeState, type StripeEvent } from "./api.ts";
import { StripeDisputes } from "./disputes.ts";
import { StripeRefunds } from "./refunds.ts";
import { completeSetupAction } from "./setup-action.ts";
import { StripeApiError, missing } from "./errors.ts";
import { TEST_CARD_NUMBERS } from "./cards.ts";
import { type Form, list, parseForm, str } from "./form.ts";
import { pageOf } from "./list.ts";
import { STRIPE_JS } from "./stripe-js.ts";

export type { StripeEvent };

export interface StripeServerOptions {
  secretKey?: string;
  publishableKey?: string;
  /** Where events are POSTed, signed with the secret; set later with `deliverTo`. */
  webhook?: { url: string; secret: string } | null;
  /** Deliver events as they happen (default) or only when a test calls `deliver`. */
  autoDeliver?: boolean;
}

export interface StripeServer {
  url: string;
  /** The Stripe.js stand-in, for STRIPE_JS_URL. */
  jsUrl: string;
  port: number;
  state: StripeState;
  /** Chargebacks a test opens and moves along. */
  disputes: StripeDisputes;
  /** Refunds, which a test can fail as a card's bank does. */
  refunds: StripeRefunds;
  /** Requests received, in order (method and path), for "nothing reached Stripe" checks. */
  requests: { method: string; path: string }[];
  /**
   * Requests ("POST /v1/refunds") that are carried out, after which the connection is cut before
   * the answer leaves: the caller cannot know whether Stripe did it.
   */
  cutAnswers: Set<string>;
  /** Requests ("POST /v1/payment_intents") refused with Stripe's 429 rate limit, not carried out. */
  rateLimited: Set<string>;
  /** Requests answered with Stripe's own 500 error before they are carried out. */
  failing: Set<string>;
  /** Where events go; null holds them (tests then deliver them by hand, in any order). */
  deliverTo(webhook: { url: string; secret: string } | null): void;
  deliver(event: StripeEvent, options?: { signature?: string }): Promise<number>;
  /** Events delivered automatically settle before a test reads the results. */
  idle(): Promise<void>;
  sdk(): Stripe;
  close(): Promise<void>;
}

export async function startStripeServer(options: StripeServerOptions = {}): Promise<StripeServer> {
  const secretKey = options.secretKey ?? "sk_test_till";
  const publishableKey = options.publishableKey ?? "pk_test_till";
  const state = new StripeState();
  const disputes = new StripeDisputes(state);
  const refunds = new StripeRefunds(state);
  const requests: { method: string; path: string }[] = [];
  const cutAnswers = new Set<string>();
  const rateLimited = new Set<string>();
  const failing = new Set<string>();
  const idempotent = new Map<string, { hash: string; status: number; body: string }>();
  let webhook = options.webhook ?? null;
  let lastWebhook = webhook;
  const signer = new Stripe(secretKey);
  const inFlight = new Set<Promise<unknown>>();

  async function deliver(event: StripeEvent, opts: { signature?: string } = {}): Promise<number> {
    const target = webhook ?? lastWebhook;
    if (!target) return 0;
    const payload = JSON.stringify(event);
    const signature =
      opts.signature ??
      signer.webhooks.generateTestHeaderString({ payload, secret: target.secret });
    const res = await fetch(target.url, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": signature },
      body: payload,
    });
    await res.arrayBuffer();
    return res.status;
  }
  state.onEvent = (event) => {
    if (options.autoDeliver === false || !webhook) return;
    // After the response that caused it, as Stripe does: the API answer comes first.
    const p = new Promise((r) => setTimeout(r, 5))
      .then(() => deliver(event))
      .catch(() => 0)
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };

  type Route = [verb: string, pattern: RegExp, run: (id: string, form: Form) => unknown];
  const expanded = (form: Form) => list(form, "expand");
  // Publishable keys reach only what Stripe.js calls: making a ConfirmationToken from the card the
  // buyer typed, and finishing a PaymentIntent's next action.
  const publicRoutes: Route[] = [
    [
      "POST",
      /^\/v1\/confirmation_tokens$/,
      (_, form) => {
        const data = form.payment_method_data as Form | undefined;
        const card = (data?.card ?? {}) as Form;
        const paymentMethod = TEST_CARD_NUMBERS[str(card, "number") ?? ""];
        if (!paymentMethod)
          throw new StripeApiError(402, {
            type: "card_error",
            code: "incorrect_number",
            message: "Your card number is incorrect.",
          });
        return state.createConfirmationToken({ payment_method: paymentMethod });
      },
    ],
    [
      "POST",
      /^\/v1\/payment_intents\/([^/]+)\/confirm$/,
      (id, form) =>
        state.completeAction(id, str(form, "client_secret"), str(form, "fail") !== "true"),
    ],
    [
      "POST",
      /^\/v1\/setup_intents\/([^/]+)\/confirm$/,
      (id, form) =>
        completeSetupAction(state, id, str(form, "client_secret"), str(form, "fail") !== "true"),
    ],
  ];
  const routes: Route[] = [
    ["POST", /^\/v1\/customers$/, (_, form) => state.createCustomer(form)],
    ["GET", /^\/v1\/customers\/([^/]+)$/, (id) => state.customer(id)],
    [
      "POST",
      /^\/v1\/test_helpers\/confirmation_tokens$/,
      (_, form) => state.createConfirmationToken(form),
    ],
    [
      "GET",
      /^\/v1\/confirmation_tokens\/([^/]+)$/,
      (id) => {
        const token = state.tokens.get(id);
        if (!token) throw missing("confirmationtoken", id);
        return state.publicToken(token);
      },
    ],
    [
      "GET",
      /^\/v1\/payment_methods\/([^/]+)$/,
      (id) => {
        const pm = state.paymentMethods.get(id);
        if (!pm) throw missing("PaymentMethod", id);
        return state.publicPm(pm);
      },
    ],
    ["POST", /^\/v1\/payment_methods\/([^/]+)\/detach$/, (id) => state.detach(id)],
    [
      "GET",
      /^\/v1\/payment_intents\/search$/,
      (_, form) => ({
        object: "search_result",
        url: "/v1/payment_intents/search",
        data: state
          .searchIntents(str(form, "query") ?? "")
          .slice(0, Number(str(form, "limit") ?? 10))
          .map((pi) => state.expandIntent(pi, expanded(form), "data.")),
        has_more: false,
        next_page: null,
      }),
    ],
    [
      "GET",
      /^\/v1\/payment_intents$/,
      (_, form) => {
        // Read after write, newest first, optionally of one customer (unlike search, no lag).
        const customer = str(form, "customer");
        const all = [...state.intents.values()]
          .filter((pi) => !customer || pi.customer === customer)
          .reverse();
        const page = pageOf(all, form, "/v1/payment_intents", "payment_intent");
        return {
          ...page,
          data: page.data.map((pi) => state.expandIntent(pi, expanded(form), "data.")),
        };
      },
    ],
    [
      "POST",
      /^\/v1\/payment_intents$/,
      (_, form) => state.expandIntent(state.createPaymentIntent(form), expanded(form)),
    ],
    [
      "POST",
      /^\/v1\/payment_intents\/([^/]+)\/cancel$/,
      (id, form) =>
        state.expandIntent(
          state.cancelIntent(id, str(form, "cancellation_reason")),
          expanded(form),
        ),
    ],
    [
      "GET",
      /^\/v1\/payment_intents\/([^/]+)$/,
      (id, form) => state.expandIntent(state.intent(id), expanded(form)),
    ],
    [
      "POST",
      /^\/v1\/setup_intents$/,
      (_, form) => state.expandSetup(state.createSetupIntent(form), expanded(form)),
    ],
    ["GET", /^\/v1\/disputes\/([^/]+)$/, (id) => disputes.get(id)],
    ["POST", /^\/v1\/disputes\/([^/]+)\/close$/, (id) => disputes.close(id)],
    [
      "GET",
      /^\/v1\/setup_intents\/([^/]+)$/,
      (id, form) => {
        const si = state.setupIntents.get(id);
        if (!si) throw missing("setup_intent", id);
        return state.expandSetup(si, expanded(form));
      },
    ],
    ["POST", /^\/v1\/refunds$/, (_, form) => refunds.create(form)],
    ["GET", /^\/v1\/refunds$/, (_, form) => refunds.list(form)],
    ["GET", /^\/v1\/refunds\/([^/]+)$/, (id) => refunds.get(id)],
  ];

  function route(method: string, path: string, form: Form, publishable: boolean): unknown {
    for (const [verb, pattern, run] of publishable ? publicRoutes : routes) {
      const m = verb === method ? pattern.exec(path) : null;
      if (m) return run(m[1] ?? "", form);
    }
    if (publishable)
      throw new StripeApiError(401, {
        type: "invalid_request_error",
        message: "This API call cannot be made with a publishable API key.",
      });
    throw new StripeApiError(404, {
      type: "invalid_request_error",
      message: `Unrecognized request URL (${method}: ${path}).`,
    });
  }

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString();
    const url = new URL(req.url ?? "/", "http://stripe.local");
    const method = req.method ?? "GET";
    requests.push({ method, path: url.pathname });
    // Stripe.js calls the API from the buyer's page, across origins.
    res.setHeader("access-control-allow-origin", "*");
    if (method === "OPTIONS") {
      res.writeHead(204, {
        "access-control-allow-methods": "GET, POST",
        "access-control-allow-headers": "authorization, content-type",
      });
      res.end();
      return;
    }
    if (method === "GET" && url.pathname === "/js/stripe.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(STRIPE_JS);
      return;
    }
    const send = (status: number, body: string, replayed = false) => {
      if (cutAnswers.has(`${method} ${url.pathname}`)) {
        req.socket.destroy();
        return;
      }
      res.writeHead(status, {
        "content-type": "application/json",
        "request-id": `req_${createHash("sha1").update(String(Math.random())).digest("hex").slice(0, 14)}`,
        ...(replayed ? { "idempotent-replayed": "true" } : {}),
      });
      res.end(body);
    };
    const auth = req.headers.authorization ?? "";
    const key = auth.replace(/^Bearer\s+/i, "");
    const publishable = key === publishableKey;
    if (key !== secretKey && !publishable) {
      send(
        401,
        JSON.stringify({
          error: {
            type: "invalid_request_error",
            message: `Invalid API Key provided: ${key.slice(0, 8)}***`,
          },
        }),
      );
      return;
    }
    if (rateLimited.has(`${method} ${url.pathname}`)) {
      const error = {
        type: "invalid_request_error",
        code: "rate_limit",
        message: "Too many requests hit the API too quickly.",
      };
      send(429, JSON.stringify({ error }));
      return;
    }
    if (failing.has(`${method} ${url.pathname}`)) {
      const error = { type: "api_error", message: "An unknown error occurred." };
      send(500, JSON.stringify({ error }));
      return;
    }
    const form = parseForm(method === "GET" ? url.searchParams.toString() : raw);
    const idemKey = method === "POST" ? req.headers["idempotency-key"] : undefined;
    const hash = createHash("sha256").update(`${method} ${url.pathname} ${raw}`).digest("hex");
    if (typeof idemKey === "string") {
      const seen = idempotent.get(idemKey);
      if (seen) {
        if (seen.hash !== hash) {
          send(
            400,
            JSON.stringify({
              error: {
                type: "idempotency_error",
                message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idemKey}' if you meant to execute a different request.`,
              },
            }),
          );
          return;
        }
        send(seen.status, seen.body, true);
        return;
      }
    }
    let status = 200;
    let body: string;
    try {
      body = JSON.stringify(route(method, url.pathname, form, publishable));
    } catch (err) {
      if (!(err instanceof StripeApiError)) throw err;
      status = err.status;
      body = JSON.stringify({ error: err.body });
    }
    // Stripe saves the result of a request that reached it, errors included (not 5xx or 409s).
    if (typeof idemKey === "string") idempotent.set(idemKey, { hash, status, body });
    send(status, body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    jsUrl: `${url}/js/stripe.js`,
    port,
    state,
    disputes,
    refunds,
    requests,
    cutAnswers,
    rateLimited,
    failing,
    deliverTo(target) {
      webhook = target;
      if (target) lastWebhook = target;
    },
    deliver,
    async idle() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    sdk: () => new Stripe(secretKey, { host: "127.0.0.1", port, protocol: "http" }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
