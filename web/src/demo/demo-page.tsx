// The demo store's one page: sign up or in (the store's own users), the catalog with a buy button
// that opens till's checkout overlay through `authClient.checkoutEmbed`, and the customer's
// subscriptions with a link into till's customer portal. After paying, the overlay sends the browser
// back here with ?checkout_id=, and the page thanks the customer.
import { useCallback, useEffect, useState, type FormEvent } from "react";
import { interval, money } from "../checkout/format.ts";
import { authClient, listProducts, type CustomerState, type DemoProduct } from "./auth-client.ts";

interface SignedIn {
  name: string;
  email: string;
}

export function DemoPage() {
  const [user, setUser] = useState<SignedIn | null | undefined>(undefined);
  const [products, setProducts] = useState<DemoProduct[]>([]);
  const [error, setError] = useState<string | null>(null);
  const thanked = new URLSearchParams(window.location.search).has("checkout_id");

  const refreshSession = useCallback(async () => {
    const { data } = await authClient.getSession();
    setUser(data ? { name: data.user.name, email: data.user.email } : null);
  }, []);
  useEffect(() => {
    void refreshSession();
    listProducts().then(setProducts, (err: Error) => setError(err.message));
  }, [refreshSession]);

  return (
    <main className="store">
      <header className="bar">
        <h1>Demo Store</h1>
        {user ? (
          <span className="who">
            {user.email}{" "}
            <button type="button" onClick={() => void authClient.signOut().then(refreshSession)}>
              Sign out
            </button>
          </span>
        ) : null}
      </header>
      <p className="muted intro">
        A seller's app built on till's better-auth plugin, served by <code>till dev</code>. Payments
        are sandbox: use the card 4242 4242 4242 4242.
      </p>
      {thanked && user ? (
        <p className="notice" role="status">
          Thanks! Your purchase went through.
        </p>
      ) : null}
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {user === undefined ? (
        <p className="muted">Loading…</p>
      ) : user === null ? (
        <AuthForm onSignedIn={refreshSession} />
      ) : null}
      <Catalog products={products} signedIn={Boolean(user)} />
      {user ? <Account products={products} /> : null}
    </main>
  );
}

function AuthForm({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  const [mode, setMode] = useState<"sign-up" | "sign-in">("sign-up");
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const res =
      mode === "sign-up"
        ? await authClient.signUp.email({ name, email, password })
        : await authClient.signIn.email({ email, password });
    setBusy(false);
    if (res.error) return setError(res.error.message ?? "That did not work. Try again.");
    await onSignedIn();
  };
  return (
    <section className="card auth" aria-labelledby="auth-h">
      <h2 id="auth-h">{mode === "sign-up" ? "Create an account" : "Sign in"}</h2>
      <form onSubmit={(e) => void submit(e)}>
        {mode === "sign-up" ? (
          <>
            <label htmlFor="name">Name</label>
            <input
              id="name"
              required
              autoComplete="name"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </>
        ) : null}
        <label htmlFor="email">Email</label>
        <input
          id="email"
          type="email"
          required
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          required
          minLength={8}
          autoComplete={mode === "sign-up" ? "new-password" : "current-password"}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        {error ? (
          <p className="error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" className="primary" disabled={busy}>
          {mode === "sign-up" ? "Sign up" : "Sign in"}
        </button>
      </form>
      <button
        type="button"
        className="link"
        onClick={() => setMode(mode === "sign-up" ? "sign-in" : "sign-up")}
      >
        {mode === "sign-up" ? "Have an account? Sign in" : "New here? Create an account"}
      </button>
    </section>
  );
}

function Catalog({ products, signedIn }: { products: DemoProduct[]; signedIn: boolean }) {
  const [error, setError] = useState<string | null>(null);
  const buy = async (slug: string) => {
    setError(null);
    try {
      // The checkout is created by the store's server (POST /checkout) and opened in till's overlay.
      await authClient.checkoutEmbed({ slug });
    } catch (err) {
      setError(err instanceof Error ? err.message : "The checkout could not be opened.");
    }
  };
  return (
    <section aria-labelledby="products-h">
      <h2 id="products-h">Products</h2>
      <div className="products">
        {products.map((p) => (
          <article key={p.slug} className="card product" data-product={p.slug}>
            <h3>{p.name}</h3>
            <p className="muted">{p.description}</p>
            <p className="price">
              {money(p.price_amount, p.price_currency)}
              {interval(p.recurring_interval)}
            </p>
            <button
              type="button"
              className="primary buy"
              disabled={!signedIn}
              onClick={() => void buy(p.slug)}
            >
              {p.recurring_interval ? "Subscribe" : "Buy"}
            </button>
          </article>
        ))}
      </div>
      {!signedIn ? <p className="muted">Sign in to buy.</p> : null}
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}

function Account({ products }: { products: DemoProduct[] }) {
  const [state, setState] = useState<CustomerState | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void authClient.customer.state().then(({ data, error: err }) => {
      // No till customer yet is no purchases yet.
      if (!err) return setState(data as unknown as CustomerState);
      if (err.status === 404) setState({ active_subscriptions: [], granted_benefits: [] });
      else setError(err.message ?? "Your purchases could not be loaded.");
    });
  }, []);
  const nameOf = (productId: string) =>
    products.find((p) => p.id === productId)?.name ?? "Subscription";
  const openPortal = async () => {
    // The plugin answers {url, redirect: true}; better-auth's client follows it to till's portal.
    const res = await authClient.customer.portal();
    if (res.error) setError(res.error.message ?? "The portal could not be opened.");
  };
  return (
    <section aria-labelledby="account-h">
      <h2 id="account-h">Your account</h2>
      {state === null && !error ? <p className="muted">Loading…</p> : null}
      {state && state.active_subscriptions.length === 0 ? (
        <p className="muted">No active subscriptions.</p>
      ) : null}
      {state?.active_subscriptions.map((s) => (
        <div key={s.id} className="card row subscription" data-subscription={s.id}>
          <strong>{nameOf(s.product_id)}</strong>
          <span>
            {money(s.amount, s.currency)}
            {interval(s.recurring_interval)} · {s.status}
          </span>
        </div>
      ))}
      <button type="button" className="portal" onClick={() => void openPortal()}>
        Open customer portal
      </button>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
