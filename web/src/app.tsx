// The dashboard shell. Until a seller signs in it says what is running and what to do next.
import { useEffect, useState } from "react";

interface Health {
  status: string;
  database: string;
}

export function App() {
  const [health, setHealth] = useState<Health | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    fetch("/readyz")
      .then((r) => r.json() as Promise<Health>)
      .then(setHealth, (e: Error) => setError(e.message));
  }, []);
  return (
    <main className="shell">
      <h1>till</h1>
      <p className="lead">Self-hostable billing for developers.</p>
      <section aria-live="polite" className="card">
        {error ? <p role="alert">Server not reachable: {error}</p> : health ? <p>Server ready · database: {health.database}</p> : <p>Checking the server…</p>}
      </section>
      <section className="card">
        <h2>Next steps</h2>
        <ol>
          <li>
            Log in from your terminal: <code>till login</code>
          </li>
          <li>
            Create a product: <code>till products create --name Pro --price 1500 --recurring month</code>
          </li>
          <li>
            API reference: Polar's API v1 at <code>/v1/</code>
          </li>
        </ol>
      </section>
    </main>
  );
}
