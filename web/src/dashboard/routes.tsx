// Which page a path shows, inside the signed-in layout.
import type { ReactNode } from "react";
import { match } from "./router.ts";
import { BenefitsPage } from "./pages/benefits.tsx";
import { CheckoutsPage } from "./pages/checkouts.tsx";
import { CustomerDetailPage, CustomersPage } from "./pages/customers.tsx";
import { DiscountsPage } from "./pages/discounts.tsx";
import { ClockPage } from "./pages/clock.tsx";
import { EmailsPage } from "./pages/emails.tsx";
import { HomePage } from "./pages/home.tsx";
import { MeterDetailPage, MetersPage } from "./pages/meters.tsx";
import { CreateOrganization, MembersPage } from "./pages/organization.tsx";
import { OrdersPage, SubscriptionsPage } from "./pages/sales.tsx";
import { LicenseKeysPage, RefundsPage } from "./pages/refunds-licenses.tsx";
import { ProductDetailPage } from "./pages/product-detail.tsx";
import { ProductsPage } from "./pages/products.tsx";
import { TeamsPage } from "./pages/teams.tsx";
import { TokensPage } from "./pages/tokens.tsx";
import { WebhooksPage } from "./pages/webhooks.tsx";

const ROUTES: [string, (p: Record<string, string>) => ReactNode][] = [
  ["/", () => <HomePage />],
  ["/products", () => <ProductsPage />],
  ["/products/:id", (p) => <ProductDetailPage id={p.id!} />],
  ["/benefits", () => <BenefitsPage />],
  ["/discounts", () => <DiscountsPage />],
  ["/meters", () => <MetersPage />],
  ["/meters/:id", (p) => <MeterDetailPage id={p.id!} />],
  ["/customers", () => <CustomersPage />],
  ["/customers/:id", (p) => <CustomerDetailPage id={p.id!} />],
  ["/checkouts", () => <CheckoutsPage />],
  ["/orders", () => <OrdersPage />],
  ["/subscriptions", () => <SubscriptionsPage />],
  ["/refunds", () => <RefundsPage />],
  ["/license-keys", () => <LicenseKeysPage />],
  ["/webhooks", () => <WebhooksPage />],
  ["/tokens", () => <TokensPage />],
  ["/emails", () => <EmailsPage />],
  ["/clock", () => <ClockPage />],
  ["/settings/members", () => <MembersPage />],
  ["/settings/teams", () => <TeamsPage />],
  ["/organizations/new", () => <CreateOrganization first={false} />],
];

export function routeFor(path: string): ReactNode {
  for (const [pattern, render] of ROUTES) {
    const params = match(pattern, path);
    if (params) return render(params);
  }
  return (
    <div className="empty">
      <h2>Page not found</h2>
      <p className="muted">Nothing lives at {path}. Pick a section on the left.</p>
    </div>
  );
}
