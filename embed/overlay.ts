// The full-screen checkout overlay: a modal iframe over the seller's page that trusts messages only
// from the allowed origins AND from its own frame. The page behind is inert while it is open, so
// focus stays in the dialog; Escape and the close button work until a payment is confirmed and
// again once it has succeeded. A checkout that cannot load (server down, origin not allowed,
// network) raises `error` and says so in the overlay; every way out removes the spinner, the style
// element and the scroll lock, and returns focus to the opener.
import { type CheckoutMessage, MESSAGE_TYPE } from "./messages.ts";

export type Theme = "light" | "dark";
export type OverlayEventName = "loaded" | "close" | "confirmed" | "success" | "error";

export interface CreateOptions {
  theme?: Theme;
  /** Milliseconds to wait for the page's `loaded` message (default 20 s). */
  loadTimeout?: number;
}

const Z_INDEX = "2147483647";
const STYLE_ID = "till-checkout-style";
/** After the frame's load event, how long the page has to say `loaded` before it counts as failed. */
const AFTER_LOAD_MS = 6000;
const CSS = `.till-checkout-dialog{position:fixed;inset:0;z-index:${Z_INDEX};background:#0006}
.till-checkout-dialog iframe{position:fixed;inset:0;width:100%;height:100%;border:0;z-index:${Z_INDEX}}
.till-checkout-spinner{position:fixed;top:50%;left:50%;width:20px;height:20px;margin:-10px;z-index:${Z_INDEX};border:2px solid #fff6;border-top-color:#fff;border-radius:50%;animation:till-spin .8s linear infinite}
.till-checkout-error{position:fixed;top:50%;left:50%;transform:translate(-50%,-50%);box-sizing:border-box;width:min(400px,calc(100% - 32px));padding:24px;border-radius:12px;background:#fff;color:#14161b;font:16px/1.4 system-ui,sans-serif;box-shadow:0 12px 48px #0004}
.till-checkout-error p{margin:0 0 16px}
.till-checkout-error button{font:inherit;padding:8px 16px;border-radius:8px;border:0;background:#2f4ccf;color:#fff;cursor:pointer}
@keyframes till-spin{to{transform:rotate(1turn)}}`;

/** Origins allowed to speak for a checkout; the served /embed.js has the server's own baked in. */
export const allowedOrigins: string[] = [];

const LOAD_FAILED = "The checkout could not be loaded. Check your connection and try again.";
const NOT_FOUND =
  "Checkout not found. This link is not valid. Go back to the store to start again.";
const EXPIRED =
  "This checkout has expired. Nothing was charged. Go back to the store to start again.";
const REFUSED =
  "This checkout cannot be opened here. The seller has not allowed this site to show it. Nothing was charged.";

export class TillCheckout {
  readonly iframe: HTMLIFrameElement;
  #events = new EventTarget();
  #dialog: HTMLDivElement;
  #spinner: HTMLDivElement | null;
  #loaded = false;
  #closable = true;
  #closed = false;
  #origin: string;
  #returnFocus: Element | null;
  #previousOverflow: string;
  #inert: HTMLElement[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #afterLoad: ReturnType<typeof setTimeout> | undefined;
  #onFail: ((error: Error) => void) | null = null;
  #onMessage = (e: MessageEvent) => this.#receive(e);
  #onKey = (e: KeyboardEvent) => {
    if (e.key === "Escape") this.#requestClose();
  };

  private constructor(url: URL, theme: Theme) {
    this.#origin = url.origin;
    this.#returnFocus = document.activeElement;
    this.#previousOverflow = document.body.style.overflow;
    document.body.style.overflow = "hidden";

    // ARIA through the reflected properties (role, ariaModal, ariaLabel): same attributes, fewer bytes.
    this.#dialog = Object.assign(document.createElement("div"), {
      className: "till-checkout-dialog",
      role: "dialog",
      ariaModal: "true",
      ariaLabel: "Checkout",
      tabIndex: -1,
    });
    this.#spinner = Object.assign(document.createElement("div"), {
      className: "till-checkout-spinner",
      role: "progressbar",
      ariaLabel: "Loading checkout",
    });
    this.iframe = Object.assign(document.createElement("iframe"), {
      title: "Checkout",
      allow: "payment; clipboard-write",
    });
    url.searchParams.set("embed", "true");
    url.searchParams.set("embed_origin", window.location.origin);
    url.searchParams.set("theme", theme);
    this.iframe.src = url.toString();
    // A frame that loads (even the browser's error page) but never says `loaded` has failed.
    this.iframe.addEventListener("load", () => {
      if (this.#loaded || this.#closed) return;
      this.#afterLoad ??= setTimeout(() => this.#fail(LOAD_FAILED), AFTER_LOAD_MS);
      void this.#diagnose(url);
    });
    // The style travels with the dialog, so removing the dialog removes it too.
    this.#dialog.append(
      Object.assign(document.createElement("style"), { id: STYLE_ID, textContent: CSS }),
      this.#spinner,
      this.iframe,
    );
    // Everything else on the page is inert while the dialog is open: Tab cannot leave it.
    for (const el of Array.from(document.body.children) as HTMLElement[]) {
      if (!el.inert && el.tagName !== "SCRIPT") {
        el.inert = true;
        this.#inert.push(el);
      }
    }
    document.body.appendChild(this.#dialog);
    this.#dialog.focus();
    window.addEventListener("message", this.#onMessage);
    document.addEventListener("keydown", this.#onKey);
  }

  /** Opens the overlay; resolves when the checkout page reports `loaded`, rejects if it cannot load. */
  static create(url: string, options: CreateOptions = {}): Promise<TillCheckout> {
    const parsed = new URL(url, window.location.href);
    const theme = options.theme ?? themeOf(parsed);
    const checkout = new TillCheckout(parsed, theme);
    return new Promise((resolve, reject) => {
      checkout.#onFail = reject;
      checkout.#timer = setTimeout(
        () => checkout.#fail(LOAD_FAILED),
        options.loadTimeout ?? 20_000,
      );
      checkout.addEventListener("loaded", () => resolve(checkout), { once: true });
    });
  }

  /** Binds every [data-till-checkout] and [data-polar-checkout] element to open its checkout. */
  static init(root: ParentNode = document): void {
    const elements = root.querySelectorAll<HTMLElement>(
      "[data-till-checkout],[data-polar-checkout]",
    );
    for (const el of elements) {
      if (el.dataset.tillCheckoutBound) continue;
      el.dataset.tillCheckoutBound = "true";
      el.addEventListener("click", (e) => {
        e.preventDefault();
        const url = el.getAttribute("href") || el.dataset.tillCheckout || el.dataset.polarCheckout;
        const theme = (el.dataset.tillCheckoutTheme ?? el.dataset.polarCheckoutTheme) as
          | Theme
          | undefined;
        if (url) void TillCheckout.create(url, theme ? { theme } : {}).catch(() => {});
      });
    }
  }

  addEventListener(
    type: OverlayEventName,
    listener: (e: CustomEvent) => void,
    options?: AddEventListenerOptions,
  ): void {
    this.#events.addEventListener(type, listener as EventListener, options);
  }

  removeEventListener(type: OverlayEventName, listener: (e: CustomEvent) => void): void {
    this.#events.removeEventListener(type, listener as EventListener);
  }

  close(): void {
    if (this.#closed) return;
    this.#cleanup();
  }

  #requestClose(): void {
    if (this.#closable && !this.#closed) this.#dispatch("close", {}, () => this.close());
  }

  #receive(e: MessageEvent): void {
    if (e.source !== this.iframe.contentWindow) return;
    if (e.origin !== this.#origin) return;
    if (allowedOrigins.length > 0 && !allowedOrigins.includes(e.origin)) return;
    // Unknown events of the right type fall through the switch below and change nothing.
    if ((e.data as { type?: unknown } | null)?.type !== MESSAGE_TYPE) return;
    const message = e.data as CheckoutMessage;
    switch (message.event) {
      case "loaded":
        this.#loaded = true;
        this.#stopTimers();
        this.#spinner?.remove();
        this.#spinner = null;
        this.iframe.focus();
        this.#dispatch("loaded", {}, () => {});
        break;
      case "close":
        this.#requestClose();
        break;
      case "error":
        this.#fail(typeof message.message === "string" ? message.message : LOAD_FAILED);
        break;
      case "confirmed":
        this.#dispatch("confirmed", {}, () => {
          this.#closable = false;
        });
        break;
      case "success":
        // The payment is done: the overlay can be closed again, whatever a listener decides.
        this.#closable = true;
        this.#dispatch(
          "success",
          {
            successURL: message.successURL,
            redirect: message.redirect,
            checkoutId: message.checkoutId,
            orderId: message.orderId ?? null,
          },
          () => {
            if (message.redirect && message.successURL) location.href = message.successURL;
          },
        );
        break;
    }
  }

  /** The checkout cannot be shown: say so in the overlay, raise `error`, reject create(). */
  /**
   * The server refuses to be framed by a site other than the checkout's embed_origin, and then the
   * page cannot say why; the public API answers any origin, so ask it.
   */
  async #diagnose(url: URL): Promise<void> {
    const secret = /\/checkout\/([^/?#]+)/.exec(url.pathname)?.[1];
    if (!secret) return;
    try {
      const res = await fetch(`${url.origin}/v1/checkouts/client/${secret}`, {
        credentials: "omit",
      });
      if (res.status === 404) return this.#fail(NOT_FOUND);
      if (res.status === 410) return this.#fail(EXPIRED);
      if (!res.ok) return;
      const body = (await res.json()) as { embed_origin?: string | null };
      if (body.embed_origin !== window.location.origin) this.#fail(REFUSED);
    } catch {
      // Unreachable: the load timer reports it.
    }
  }

  #fail(text: string): void {
    if (this.#closed || this.#loaded) return;
    this.#loaded = true;
    this.#stopTimers();
    this.#spinner?.remove();
    this.#spinner = null;
    this.iframe.remove();
    const error = new Error(text);
    const panel = Object.assign(document.createElement("div"), {
      className: "till-checkout-error",
      role: "alert",
    });
    const close = Object.assign(document.createElement("button"), {
      type: "button",
      textContent: "Close",
    });
    close.addEventListener("click", () => this.#requestClose());
    panel.append(Object.assign(document.createElement("p"), { textContent: text }), close);
    this.#dialog.append(panel);
    close.focus();
    this.#closable = true;
    this.#dispatch("error", { error }, () => {});
    this.#onFail?.(error);
  }

  /** Fires a cancelable event; the default action runs unless a listener prevented it. */
  #dispatch(type: OverlayEventName, detail: object, defaultAction: () => void): void {
    const event = new CustomEvent(type, { detail, cancelable: true });
    this.#events.dispatchEvent(event);
    if (!event.defaultPrevented) defaultAction();
  }

  #stopTimers(): void {
    clearTimeout(this.#timer);
    clearTimeout(this.#afterLoad);
  }

  #cleanup(): void {
    this.#closed = true;
    this.#stopTimers();
    window.removeEventListener("message", this.#onMessage);
    document.removeEventListener("keydown", this.#onKey);
    this.#dialog.remove();
    for (const el of this.#inert) el.inert = false;
    document.body.style.overflow = this.#previousOverflow;
    (this.#returnFocus as HTMLElement | null)?.focus?.();
  }
}

function themeOf(url: URL): Theme {
  return url.searchParams.get("theme") === "dark" ? "dark" : "light";
}
