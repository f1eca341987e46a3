// The full-screen checkout overlay: an iframe over the seller's page that trusts messages only from
// the allowed origins AND from its own frame. Every way out (close, success redirect, load timeout,
// error) removes the spinner, the style element and the scroll lock, and returns focus.
import { MESSAGE_TYPE, type CheckoutMessage } from "./messages.ts";

export type Theme = "light" | "dark";
export type OverlayEventName = "loaded" | "close" | "confirmed" | "success" | "error";

export interface CreateOptions {
  theme?: Theme;
  /** Milliseconds to wait for the page's `loaded` message (default 20 s). */
  loadTimeout?: number;
}

const Z_INDEX = "2147483647";
const STYLE_ID = "till-checkout-style";
const CSS = `.till-checkout-dialog{position:fixed;inset:0;z-index:${Z_INDEX};background:#0006}
.till-checkout-dialog iframe{position:fixed;inset:0;width:100%;height:100%;border:0;z-index:${Z_INDEX}}
.till-checkout-spinner{position:fixed;top:50%;left:50%;width:20px;height:20px;margin:-10px;z-index:${Z_INDEX};border:2px solid #fff6;border-top-color:#fff;border-radius:50%;animation:till-spin .8s linear infinite}
@keyframes till-spin{to{transform:rotate(1turn)}}`;

/** Origins allowed to speak for a checkout; the served /embed.js has the server's own baked in. */
export const allowedOrigins: string[] = [];

export class TillCheckout {
  readonly iframe: HTMLIFrameElement;
  #events = new EventTarget();
  #dialog: HTMLDivElement;
  #spinner: HTMLDivElement | null;
  #closable = true;
  #closed = false;
  #origin: string;
  #returnFocus: Element | null;
  #previousOverflow: string;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #onMessage = (e: MessageEvent) => this.#receive(e);
  #onKey = (e: KeyboardEvent) => {
    if (e.key === "Escape" && this.#closable) this.#dispatch("close", {}, () => this.close());
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
    });
    this.#spinner = Object.assign(document.createElement("div"), {
      className: "till-checkout-spinner",
      role: "progressbar",
      ariaLabel: "Loading checkout",
    });
    this.iframe = Object.assign(document.createElement("iframe"), {
      title: "Checkout",
      allow: "payment",
    });
    url.searchParams.set("embed", "true");
    url.searchParams.set("embed_origin", window.location.origin);
    url.searchParams.set("theme", theme);
    this.iframe.src = url.toString();
    // The style travels with the dialog, so removing the dialog removes it too.
    this.#dialog.append(
      Object.assign(document.createElement("style"), { id: STYLE_ID, textContent: CSS }),
      this.#spinner,
      this.iframe,
    );
    document.body.appendChild(this.#dialog);
    window.addEventListener("message", this.#onMessage);
    document.addEventListener("keydown", this.#onKey);
  }

  /** Opens the overlay; resolves when the checkout page reports `loaded`, rejects on timeout. */
  static create(url: string, options: CreateOptions = {}): Promise<TillCheckout> {
    const parsed = new URL(url, window.location.href);
    const theme = options.theme ?? themeOf(parsed);
    const checkout = new TillCheckout(parsed, theme);
    return new Promise((resolve, reject) => {
      checkout.#timer = setTimeout(() => {
        const error = new Error("The checkout did not load.");
        checkout.#dispatch("error", { error }, () => {});
        checkout.#cleanup();
        reject(error);
      }, options.loadTimeout ?? 20_000);
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

  #receive(e: MessageEvent): void {
    if (e.source !== this.iframe.contentWindow) return;
    if (e.origin !== this.#origin) return;
    if (allowedOrigins.length > 0 && !allowedOrigins.includes(e.origin)) return;
    // Unknown events of the right type fall through the switch below and change nothing.
    if ((e.data as { type?: unknown } | null)?.type !== MESSAGE_TYPE) return;
    const message = e.data as CheckoutMessage;
    switch (message.event) {
      case "loaded":
        clearTimeout(this.#timer);
        this.#spinner?.remove();
        this.#spinner = null;
        this.iframe.focus();
        this.#dispatch("loaded", {}, () => {});
        break;
      case "close":
        if (this.#closable) this.#dispatch("close", {}, () => this.close());
        break;
      case "confirmed":
        this.#dispatch("confirmed", {}, () => {
          this.#closable = false;
        });
        break;
      case "success":
        this.#dispatch(
          "success",
          {
            successURL: message.successURL,
            redirect: message.redirect,
            checkoutId: message.checkoutId,
            orderId: message.orderId ?? null,
          },
          () => {
            this.#closable = true;
            if (message.redirect && message.successURL) location.href = message.successURL;
          },
        );
        break;
    }
  }

  /** Fires a cancelable event; the default action runs unless a listener prevented it. */
  #dispatch(type: OverlayEventName, detail: object, defaultAction: () => void): void {
    const event = new CustomEvent(type, { detail, cancelable: true });
    this.#events.dispatchEvent(event);
    if (!event.defaultPrevented) defaultAction();
  }

  #cleanup(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    window.removeEventListener("message", this.#onMessage);
    document.removeEventListener("keydown", this.#onKey);
    this.#dialog.remove();
    document.body.style.overflow = this.#previousOverflow;
    (this.#returnFocus as HTMLElement | null)?.focus?.();
  }
}

function themeOf(url: URL): Theme {
  return url.searchParams.get("theme") === "dark" ? "dark" : "light";
}
