// The resources: customers, payment methods, confirmation tokens, payment intents, setup intents,
// refunds. Each state change queues the event Stripe would send.
import { randomBytes } from "node:crypto";
import { fingerprintOf, TEST_PAYMENT_METHODS, type TestCard } from "./cards.ts";
import { cardError, invalidRequest, missing } from "./errors.ts";
import { bool, type Form, list, record, str } from "./form.ts";

type Obj = Record<string, unknown> & { id: string };

const rid = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;
const now = () => Math.floor(Date.now() / 1000);

export interface StripeEvent {
  id: string;
  object: "event";
  type: string;
  created: number;
  data: { object: Record<string, unknown> };
  livemode: false;
  api_version: string;
}

export class StripeState {
  customers = new Map<string, Obj>();
  paymentMethods = new Map<string, Obj & { test: TestCard }>();
  tokens = new Map<string, Obj & { pmSource: string; used: boolean }>();
  intents = new Map<string, Obj>();
  setupIntents = new Map<string, Obj>();
  refunds = new Map<string, Obj>();
  events: StripeEvent[] = [];
  /**
   * How long a new PaymentIntent stays out of search results. Stripe's search is eventually
   * consistent (under a minute normally, longer during outages); 0 makes it immediate.
   */
  searchLagMs = 0;
  private createdAtMs = new Map<string, number>();
  onEvent: (event: StripeEvent) => void = () => {};

  emit(type: string, object: Record<string, unknown>): void {
    const event: StripeEvent = {
      id: rid("evt"),
      object: "event",
      type,
      created: now(),
      data: { object: structuredClone(object) },
      livemode: false,
      api_version: "2026-10-28.endive",
    };
    this.events.push(event);
    this.onEvent(event);
  }

  createCustomer(form: Form): Obj {
    const c = {
      id: rid("cus"),
      object: "customer",
      email: str(form, "email") ?? null,
      name: str(form, "name") ?? null,
      metadata: record(form, "metadata"),
      created: now(),
    };
    this.customers.set(c.id, c);
    return c;
  }

  customer(id: string, param?: string): Obj {
    const c = this.customers.get(id);
    if (!c) throw missing("customer", id, param);
    return c;
  }

  /** A pm_card_* shorthand makes a new PaymentMethod each time, as Stripe does. */
  materialize(source: string): Obj & { test: TestCard } {
    const existing = this.paymentMethods.get(source);
    if (existing) return existing;
    const test = TEST_PAYMENT_METHODS[source];
    if (!test) throw missing("PaymentMethod", source, "payment_method");
    const pm = {
      id: rid("pm"),
      object: "payment_method",
      type: "card",
      card: {
        brand: test.brand,
        last4: test.last4,
        exp_month: 12,
        exp_year: 2034,
        fingerprint: fingerprintOf(test),
      },
      customer: null as string | null,
      created: now(),
      test,
    };
    this.paymentMethods.set(pm.id, pm);
    return pm;
  }

  publicPm(pm: Obj & { test: TestCard }): Obj {
    const { test: _t, ...rest } = pm;
    return rest;
  }

  createConfirmationToken(form: Form): Obj {
    const source = str(form, "payment_method");
    if (!source) throw invalidRequest("Missing required param: payment_method.", "payment_method");
    const test = this.paymentMethods.get(source)?.test ?? TEST_PAYMENT_METHODS[source];
    if (!test) throw missing("PaymentMethod", source, "payment_method");
    const token = {
      id: rid("ctoken"),
      object: "confirmation_token",
      payment_method_preview: {
        type: "card",
        card: { brand: test.brand, last4: test.last4, fingerprint: fingerprintOf(test) },
      },
      created: now(),
      pmSource: source,
      used: false,
    };
    this.tokens.set(token.id, token);
    return this.publicToken(token);
  }

  publicToken(token: Obj & { pmSource: string; used: boolean }): Obj {
    const { pmSource: _s, used: _u, ...rest } = token;
    return rest;
  }

  /** The PaymentMethod a confirm uses: from its confirmation token (used once) or given. */
  private paymentMethodFor(form: Form): Obj & { test: TestCard } {
    const tokenId = str(form, "confirmation_token");
    if (tokenId) {
      const token = this.tokens.get(tokenId);
      if (!token) throw missing("confirmationtoken", tokenId, "confirmation_token");
      if (token.used)
        throw invalidRequest(
          "This ConfirmationToken has already been used.",
          "confirmation_token",
          "confirmation_token_already_used",
        );
      token.used = true;
      return this.materialize(token.pmSource);
    }
    const pmId = str(form, "payment_method");
    if (!pmId)
      throw invalidRequest(
        "You must provide a confirmation_token or payment_method.",
        "payment_method",
      );
    return this.materialize(pmId);
  }

  attach(pm: Obj & { test: TestCard }, customer: string): void {
    if (pm.customer && pm.customer !== customer)
      throw invalidRequest("The payment method is attached to another customer.", "payment_method");
    pm.customer = customer;
  }

  createPaymentIntent(form: Form): Obj {
    const amount = Number(str(form, "amount"));
    if (!Number.isInteger(amount) || amount < 1)
      throw invalidRequest("Invalid positive integer", "amount", "parameter_invalid_integer");
    const currency = str(form, "currency");
    if (!currency) throw invalidRequest("Missing required param: currency.", "currency");
    const customer = str(form, "customer") ?? null;
    if (customer) this.customer(customer, "customer");
    const pi: Obj = {
      id: rid("pi"),
      object: "payment_intent",
      amount,
      amount_received: 0,
      currency,
      customer,
      description: str(form, "description") ?? null,
      metadata: record(form, "metadata"),
      setup_future_usage: str(form, "setup_future_usage") ?? null,
      status: "requires_payment_method",
      payment_method: null,
      latest_charge: null,
      last_payment_error: null,
      next_action: null,
      created: now(),
    };
    pi.client_secret = `${pi.id}_secret_${randomBytes(8).toString("hex")}`;
    this.intents.set(pi.id, pi);
    this.createdAtMs.set(pi.id, Date.now());
    this.emit("payment_intent.created", pi);
    if (!bool(form, "confirm")) return pi;
    return this.confirmIntent(pi, this.paymentMethodFor(form), bool(form, "off_session"));
  }

  private confirmIntent(pi: Obj, pm: Obj & { test: TestCard }, offSession: boolean): Obj {
    pi.payment_method = pm.id;
    const customer = pi.customer as string | null;
    if (offSession && pm.customer !== customer)
      throw invalidRequest(
        "The provided PaymentMethod was previously used without being attached to a Customer.",
        "payment_method",
      );
    if (pi.setup_future_usage && customer) this.attach(pm, customer);
    const behavior = pm.test.behavior;
    if (behavior === "authenticate" && !offSession) {
      pi.status = "requires_action";
      pi.next_action = {
        type: "use_stripe_sdk",
        use_stripe_sdk: { type: "three_d_secure_redirect" },
      };
      this.emit("payment_intent.requires_action", pi);
      return pi;
    }
    if (behavior === "succeed") return this.succeed(pi);
    const [code, decline, message] =
      behavior === "insufficient_funds"
        ? ["card_declined", "insufficient_funds", "Your card has insufficient funds."]
        : behavior === "authenticate"
          ? [
              "authentication_required",
              "authentication_required",
              "Your card was declined. This transaction requires authentication.",
            ]
          : ["card_declined", "generic_decline", "Your card was declined."];
    pi.status = "requires_payment_method";
    pi.last_payment_error = { type: "card_error", code, decline_code: decline, message };
    this.emit("payment_intent.payment_failed", pi);
    throw cardError(code, decline, message, {
      payment_intent: pi,
      payment_method: this.publicPm(pm),
    });
  }

  private succeed(pi: Obj): Obj {
    pi.status = "succeeded";
    pi.amount_received = pi.amount;
    pi.next_action = null;
    pi.latest_charge = rid("ch");
    this.emit("payment_intent.succeeded", pi);
    return pi;
  }

  /** What Stripe.js does once the customer passed 3-D Secure (authenticated with the client secret). */
  completeAction(id: string, clientSecret: string | undefined, pass: boolean): Obj {
    const pi = this.intent(id);
    if (clientSecret !== undefined && clientSecret !== pi.client_secret)
      throw invalidRequest("The client_secret does not match this PaymentIntent.", "client_secret");
    if (pi.status !== "requires_action")
      throw invalidRequest(
        `This PaymentIntent's status is ${String(pi.status)}.`,
        undefined,
        "payment_intent_unexpected_state",
      );
    if (pass) return this.succeed(pi);
    pi.status = "requires_payment_method";
    pi.next_action = null;
    pi.last_payment_error = {
      type: "card_error",
      code: "payment_intent_authentication_failure",
      message: "We are unable to authenticate your payment method.",
    };
    this.emit("payment_intent.payment_failed", pi);
    return pi;
  }

  cancelIntent(id: string, reason: string | undefined): Obj {
    const pi = this.intent(id);
    if (pi.status === "succeeded" || pi.status === "canceled")
      throw invalidRequest(
        `You cannot cancel this PaymentIntent because it has a status of ${String(pi.status)}.`,
        undefined,
        "payment_intent_unexpected_state",
      );
    pi.status = "canceled";
    pi.next_action = null;
    pi.cancellation_reason = reason ?? null;
    this.emit("payment_intent.canceled", pi);
    return pi;
  }

  intent(id: string): Obj {
    const pi = this.intents.get(id);
    if (!pi) throw missing("payment_intent", id);
    return pi;
  }

  expandIntent(pi: Obj, expand: string[], prefix = ""): Obj {
    if (!expand.includes(`${prefix}payment_method`) || typeof pi.payment_method !== "string")
      return pi;
    const pm = this.paymentMethods.get(pi.payment_method);
    return pm ? { ...pi, payment_method: this.publicPm(pm) } : pi;
  }

  /** Only what till asks: metadata['key']:'value'. */
  searchIntents(query: string): Obj[] {
    const m = /^metadata\['([^']+)'\]:'((?:[^'\\]|\\.)*)'$/.exec(query.trim());
    if (!m) throw invalidRequest(`Invalid search query: ${query}`, "query");
    const [, key, raw] = m;
    const value = raw!.replace(/\\(.)/g, "$1");
    const indexedBefore = Date.now() - this.searchLagMs;
    return [...this.intents.values()]
      .filter((pi) => (this.createdAtMs.get(pi.id) ?? 0) <= indexedBefore)
      .filter((pi) => (pi.metadata as Record<string, string>)[key!] === value)
      .sort((a, b) => Number(b.created) - Number(a.created));
  }

  createSetupIntent(form: Form): Obj {
    const customer = str(form, "customer") ?? null;
    if (customer) this.customer(customer, "customer");
    const si: Obj = {
      id: rid("seti"),
      object: "setup_intent",
      customer,
      usage: str(form, "usage") ?? "off_session",
      metadata: record(form, "metadata"),
      status: "requires_payment_method",
      payment_method: null,
      last_setup_error: null,
      created: now(),
    };
    si.client_secret = `${si.id}_secret_${randomBytes(8).toString("hex")}`;
    this.setupIntents.set(si.id, si);
    if (!bool(form, "confirm")) return si;
    const pm = this.paymentMethodFor(form);
    si.payment_method = pm.id;
    if (pm.test.behavior === "decline" || pm.test.behavior === "insufficient_funds") {
      si.last_setup_error = {
        type: "card_error",
        code: "card_declined",
        message: "Your card was declined.",
      };
      this.emit("setup_intent.setup_failed", si);
      throw cardError("card_declined", "generic_decline", "Your card was declined.", {
        setup_intent: si,
      });
    }
    if (pm.test.behavior === "authenticate") {
      si.status = "requires_action";
      return si;
    }
    if (customer) this.attach(pm, customer);
    si.status = "succeeded";
    this.emit("setup_intent.succeeded", si);
    return si;
  }

  expandSetup(si: Obj, expand: string[]): Obj {
    if (!expand.includes("payment_method") || typeof si.payment_method !== "string") return si;
    const pm = this.paymentMethods.get(si.payment_method);
    return pm ? { ...si, payment_method: this.publicPm(pm) } : si;
  }

  detach(id: string): Obj {
    const pm = this.paymentMethods.get(id);
    if (!pm) throw missing("PaymentMethod", id);
    pm.customer = null;
    const out = this.publicPm(pm);
    this.emit("payment_method.detached", out);
    return out;
  }

  list(form: Form, key: string): string[] {
    return list(form, key);
  }
}
