// Overview: a few numbers and the next step, in the words of the `till` CLI.
import { useApi, withQuery, type Page } from "../api.ts";
import { useOrg } from "../auth.ts";
import { CopyButton, Link } from "../ui.tsx";

function Count({ path, label, to }: { path: string; label: string; to: string }) {
  const org = useOrg();
  const page = useApi<Page<unknown>>(withQuery(path, { organization_id: org.id, limit: 1 }));
  return (
    <Link to={to} className="stat card">
      <span className="muted">{label}</span>
      <strong className="big-number">
        {page.error ? "—" : page.data ? page.data.pagination.total_count : "…"}
      </strong>
    </Link>
  );
}

const STEPS: [string, string][] = [
  ["Log in from your terminal", "till login"],
  ["Create a product", "till products create --name Pro --price 1500 --recurring month"],
  ["Count usage with a meter", "till meters create --name 'API calls' --filter 'name eq api_call'"],
  ["Sell it", "till checkouts create --product <id> --open"],
];

export function HomePage() {
  const org = useOrg();
  return (
    <>
      <header className="page-header">
        <h1>{org.name}</h1>
      </header>
      <div className="grid four">
        <Count path="/v1/products/" label="Products" to="/products" />
        <Count path="/v1/customers/" label="Customers" to="/customers" />
        <Count path="/v1/orders/" label="Orders" to="/orders" />
        <Count path="/v1/subscriptions/" label="Subscriptions" to="/subscriptions" />
      </div>
      <section className="card stack">
        <h2>Get started</h2>
        <ol className="steps">
          {STEPS.map(([what, cmd]) => (
            <li key={cmd}>
              <span>{what}</span>
              <div className="command">
                <code>{cmd}</code>
                <CopyButton text={cmd} label={`Copy: ${cmd}`} />
              </div>
            </li>
          ))}
        </ol>
        <p className="muted">
          The API is Polar's v1 at <code>{location.origin}/v1/</code>: point Polar's SDK at it with
          an <Link to="/tokens">access token</Link>.
        </p>
      </section>
    </>
  );
}
