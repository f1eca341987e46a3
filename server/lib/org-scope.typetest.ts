// Checked by `npm run typecheck`, never run: a read of tenant rows (every module listed under
// "Tenancy by type" in docs/architecture.md) takes only an OrgScope made by lib/org-scope.ts, never
// a bare organization id or id list.
import type { Db } from "../../db/client.ts";
import * as benefitsQueries from "../modules/benefits/queries.ts";
import * as benefitsRepo from "../modules/benefits/repository.ts";
import * as benefits from "../modules/benefits/service.ts";
import * as linksRepo from "../modules/checkout-links/repository.ts";
import * as checkoutsQueries from "../modules/checkouts/queries.ts";
import * as checkoutsRepo from "../modules/checkouts/repository.ts";
import * as filesRepo from "../modules/files/repository.ts";
import * as files from "../modules/files/service.ts";
import * as grantsMeters from "../modules/grants/meter-repository.ts";
import * as grantsQueries from "../modules/grants/queries.ts";
import * as grantsLists from "../modules/grants/list-repository.ts";
import * as grantsRepo from "../modules/grants/repository.ts";
import * as licenseKeysRepo from "../modules/license-keys/repository.ts";
import * as customFieldsRepo from "../modules/custom-fields/repository.ts";
import * as customFields from "../modules/custom-fields/service.ts";
import * as customerRepo from "../modules/customers/repository.ts";
import * as customers from "../modules/customers/queries.ts";
import * as disputesRepo from "../modules/disputes/repository.ts";
import * as discountsRepo from "../modules/discounts/repository.ts";
import * as discounts from "../modules/discounts/service.ts";
import * as paymentsQueries from "../modules/payments/queries.ts";
import * as paymentsRepo from "../modules/payments/repository.ts";
import * as ordersRepo from "../modules/orders/repository.ts";
import * as orders from "../modules/orders/service.ts";
import * as repo from "../modules/products/repository.ts";
import * as products from "../modules/products/service.ts";
import * as subscriptionRepo from "../modules/subscriptions/repository.ts";
import * as subscriptionQueries from "../modules/subscriptions/queries.ts";
import * as subscriptions from "../modules/subscriptions/service.ts";
import * as seatsRepo from "../modules/seats/repository.ts";
import * as refundsRepo from "../modules/refunds/repository.ts";
import * as customerMetersRepo from "../modules/customer-meters/repository.ts";
import * as dashboardsRepo from "../modules/metric-dashboards/repository.ts";
import * as eventTypesRepo from "../modules/event-types/repository.ts";
import * as tokensRepo from "../modules/tokens/repository.ts";
import * as webhooksRepo from "../modules/webhooks/repository.ts";
import * as deliveryRepo from "../modules/webhooks/delivery-repository.ts";
import * as metricsRepo from "../modules/metrics/repository.ts";
import * as exportsRepo from "../modules/exports/repository.ts";
import * as organizationsRepo from "../modules/organizations/repository.ts";
import * as clockRepo from "../modules/sandbox-clock/repository.ts";
import * as eventsRepo from "../modules/events/repository.ts";
import * as membersRepo from "../modules/members/repository.ts";
import * as metersQueries from "../modules/meters/queries.ts";
import * as metersRepo from "../modules/meters/repository.ts";
import * as meters from "../modules/meters/service.ts";
import * as walletsRepo from "../modules/wallets/repository.ts";
import type { AuthContext } from "./auth-context.ts";
import { type OrgScope, scopeOfCaller, scopeOfResource } from "./org-scope.ts";

export function typeChecks(db: Db, ctx: AuthContext, organizationId: string) {
  const anyEvent = { conditions: [], metadata: {} };
  // @ts-expect-error a plain string is not a scope
  void repo.findProduct(db, organizationId, "id");
  // @ts-expect-error nor is a list of ids
  void repo.findProducts(db, [organizationId], ["id"]);
  // @ts-expect-error nor the caller's raw ids
  void repo.listProducts(db, ctx.organizationIds, { metadata: {} }, [], 10, 0);
  // @ts-expect-error prices too
  void repo.findPrice(db, [organizationId], "id");
  // @ts-expect-error and the readers other modules call
  void products.serializeProductsByIds(db, "", [organizationId], ["id"]);
  // @ts-expect-error discounts: by id
  void discountsRepo.findDiscount(db, ctx.organizationIds, "id");
  // @ts-expect-error by code
  void discounts.discountByCode(db, organizationId, "CODE");
  // @ts-expect-error deleted ones too
  void discounts.discountOf(db, [organizationId], "id");
  // @ts-expect-error and their product links
  void discounts.restrictedProductIds(db, organizationId, "id");
  // @ts-expect-error checkout links
  void linksRepo.findLink(db, ctx.organizationIds, "id");
  // @ts-expect-error customers by id or external id
  void customerRepo.findCustomer(db, [organizationId], { id: "id" });
  // @ts-expect-error by email
  void customerRepo.findByEmail(db, organizationId, "a@example.com");
  // @ts-expect-error deleted ones included
  void customerRepo.findAnyCustomer(db, [organizationId], "id");
  // @ts-expect-error the caller's raw ids for a list
  void customerRepo.listCustomers(db, ctx.organizationIds, { metadata: {} }, [], 10, 0);
  // @ts-expect-error and the customers readers other modules call
  void customers.customersByIds(db, [organizationId], ["id"]);
  // @ts-expect-error subscriptions by id
  void subscriptionRepo.findSubscription(db, ctx.organizationIds, "id");
  // @ts-expect-error under the row lock
  void subscriptionRepo.lockSubscription(db, organizationId, "id");
  // @ts-expect-error the caller's raw ids for a list
  void subscriptionRepo.listSubscriptions(db, ctx.organizationIds, {}, [], 10, 0);
  // @ts-expect-error a customer's active ones
  void subscriptionRepo.activeOfCustomer(db, [organizationId], "id");
  // @ts-expect-error the organization's due work
  void subscriptionRepo.dueInScope(db, organizationId, new Date(), 10);
  // @ts-expect-error and the subscriptions readers other modules call, by id
  void subscriptions.subscriptionsByIds(db, [organizationId], ["id"]);
  // @ts-expect-error or by customer, for the customer state
  void subscriptionQueries.activeSubscriptionsOfCustomers(db, [organizationId], ["id"]);
  // @ts-expect-error orders by id
  void ordersRepo.findOrder(db, [organizationId], "id");
  // @ts-expect-error locked for a write
  void ordersRepo.lockOrder(db, ctx.organizationIds, "id");
  // @ts-expect-error their items
  void ordersRepo.itemsOf(db, organizationId, ["id"]);
  // @ts-expect-error a subscription's pending order
  void ordersRepo.pendingOrderOfSubscription(db, [organizationId], "id");
  // @ts-expect-error the caller's raw ids for a list of orders
  void ordersRepo.listOrders(db, { scope: ctx.organizationIds }, [], 10, 0);
  // @ts-expect-error and the orders readers other modules call
  void orders.findOrderRow(db, [organizationId], "id");
  // @ts-expect-error rendered ones too
  void orders.getOrder({ db, baseUrl: "" }, ctx.organizationIds, "id");
  // @ts-expect-error refunds: a list
  void refundsRepo.listRefunds(db, { scope: [organizationId] }, [], 10, 0);
  // @ts-expect-error an order's pending ones
  void refundsRepo.pendingOfOrder(db, organizationId, "id");
  // @ts-expect-error by the processor's refund id
  void refundsRepo.byProcessorRefund(db, [organizationId], "re_1");
  // @ts-expect-error benefits: by id
  void benefitsRepo.findBenefit(db, ctx.organizationIds, "id");
  // @ts-expect-error the list
  void benefitsRepo.listBenefits(db, [organizationId], { metadata: {} }, [], 10, 0);
  // @ts-expect-error the readers other modules call, deleted ones included
  void benefits.benefitRowsByIds(db, ["id"]);
  // @ts-expect-error live ones
  void benefits.benefitsOf(db, organizationId, ["id"]);
  // @ts-expect-error the downloadables offering a file
  void benefitsQueries.benefitsUsingFile(db, organizationId, "file");
  // @ts-expect-error grants: by id
  void grantsRepo.findGrant(db, ctx.organizationIds, "id");
  // @ts-expect-error the list
  void grantsLists.listGrants(db, { scope: [organizationId] }, [], 10, 0);
  // @ts-expect-error a customer's list in the portal
  void grantsLists.listCustomerGrants(db, { scope: [organizationId], customerId: "c" }, [], 10, 0);
  // @ts-expect-error locked for a write
  void grantsRepo.lockGrant(db, organizationId, "id");
  // @ts-expect-error a customer's grants in force
  void grantsRepo.grantedOfCustomer(db, [organizationId], "id");
  // @ts-expect-error many customers' grants
  void grantsRepo.grantedOfCustomers(db, ctx.organizationIds, ["id"]);
  // @ts-expect-error a subscription's grants in force
  void grantsRepo.grantedOfSubscription(db, organizationId, "id");
  // @ts-expect-error many subscriptions' grants
  void grantsRepo.grantedOfSubscriptions(db, [organizationId], ["id"]);
  // @ts-expect-error a purchase's grant of a benefit
  void grantsRepo.findByScope(db, organizationId, "c", "b", "s");
  // @ts-expect-error a product's benefits to grant
  void grantsRepo.benefitsOfProduct(db, [organizationId], "id");
  // @ts-expect-error a benefit's download counts
  void grantsRepo.downloadStats(db, organizationId, "id");
  // @ts-expect-error the grants of the customer state
  void grantsQueries.customerStateGrants(db, [organizationId], "id");
  // @ts-expect-error a customer's meter credit
  void grantsMeters.creditRowOf(db, organizationId, "c", "m");
  // @ts-expect-error the customers with meters
  void grantsMeters.customersWithMeters(db, ctx.organizationIds, ["id"]);
  // @ts-expect-error a customer's meters
  void grantsMeters.customerMetersOf(db, [organizationId], "id");
  // @ts-expect-error license keys: by id
  void licenseKeysRepo.findKey(db, [organizationId], "id");
  // @ts-expect-error the list
  void licenseKeysRepo.listKeys(db, { scope: ctx.organizationIds }, 10, 0);
  // @ts-expect-error by its text, for a seller's token
  void licenseKeysRepo.lockKeyByText(db, organizationId, "KEY");
  // @ts-expect-error checkouts: by id
  void checkoutsRepo.findCheckout(db, ctx.organizationIds, "id");
  // @ts-expect-error their status
  void checkoutsRepo.statusOf(db, organizationId, "id");
  // @ts-expect-error the list
  void checkoutsRepo.listCheckouts(db, { scope: [organizationId] }, [], 10, 0);
  // @ts-expect-error and the outcome other modules read
  void checkoutsQueries.checkoutOutcome(db, [organizationId], "id");
  // @ts-expect-error payments: by id
  void paymentsRepo.findPayment(db, ctx.organizationIds, "id");
  // @ts-expect-error the list
  void paymentsRepo.listPayments(db, { scope: [organizationId] }, [], 10, 0);
  // @ts-expect-error a customer's saved methods
  void paymentsRepo.listPaymentMethods(db, organizationId, "id");
  // @ts-expect-error and the readers other modules call
  void paymentsQueries.defaultPaymentMethod(db, { organizationId }, "id");
  // @ts-expect-error seats: a purchase's
  void seatsRepo.seatsOfPurchase(db, [organizationId], { orderId: "id" });
  // @ts-expect-error locked for the seller
  void seatsRepo.lockSeatOfOrganization(db, ctx.organizationIds, "id");
  // @ts-expect-error or for the buyer
  void seatsRepo.lockSeatOfBuyer(db, organizationId, "customer", "id");
  // @ts-expect-error disputes: by id
  void disputesRepo.findDispute(db, ctx.organizationIds, "id");
  // @ts-expect-error the list
  void disputesRepo.listDisputes(db, { scope: [organizationId] }, [], 10, 0);
  // @ts-expect-error custom fields: by id
  void customFieldsRepo.findCustomField(db, ctx.organizationIds, "id");
  // @ts-expect-error the slug check
  void customFieldsRepo.slugTaken(db, organizationId, "slug");
  // @ts-expect-error and the readers other modules call
  void customFields.serializeCustomFieldsByIds(db, ["id"]);
  // @ts-expect-error files: by id
  void filesRepo.findFile(db, ctx.organizationIds, "id");
  // @ts-expect-error the list
  void filesRepo.listFiles(db, [organizationId], undefined, 10, 0);
  // @ts-expect-error and the readers other modules call
  void files.filesByIds(db, ["id"]);
  // @ts-expect-error meters: by id
  void metersRepo.findMeter(db, ctx.organizationIds, "id");
  // @ts-expect-error the list
  void metersRepo.listMeters(db, [organizationId], { metadata: {} }, [], 10, 0);
  // @ts-expect-error a customer's latest event
  void metersRepo.latestEventAt(db, organizationId, "id");
  // @ts-expect-error the readers other modules call
  void metersQueries.findMeter(db, [organizationId], "id");
  // @ts-expect-error a customer's usage
  void metersQueries.customerUsage(db, organizationId, {
    meterId: "",
    customerId: "",
    start: new Date(),
    end: new Date(),
  });
  // @ts-expect-error the filter of GET /v1/events/?meter_id=
  void meters.meterFilterFor(db, ctx.organizationIds, "id");
  // @ts-expect-error events: by id
  void eventsRepo.findEvent(db, ctx.organizationIds, "id");
  // @ts-expect-error parents by id or external id
  void eventsRepo.findParents(db, organizationId, ["id"], []);
  // @ts-expect-error the list
  void eventsRepo.listEvents(db, [organizationId], anyEvent, true, 10, 0);
  // @ts-expect-error the names
  void eventsRepo.listEventNames(db, ctx.organizationIds, anyEvent, [], 10, 0);
  // @ts-expect-error event types: registering names
  void eventTypesRepo.registerNames(db, [organizationId], new Date());
  // @ts-expect-error the list
  void eventTypesRepo.listEventTypes(db, { scope: [organizationId], rootEvents: true }, [], 1, 0);
  // @ts-expect-error by id
  void eventTypesRepo.findEventType(db, organizationId, "id");
  // @ts-expect-error customer meters
  void customerMetersRepo.listCustomerMeters(db, { scope: [organizationId] }, [], null);
  // @ts-expect-error metric dashboards: the list
  void dashboardsRepo.listDashboards(db, ctx.organizationIds);
  // @ts-expect-error by id
  void dashboardsRepo.findDashboard(db, [organizationId], "id");
  // @ts-expect-error organization access tokens: the list
  void tokensRepo.listTokens(db, ctx.organizationIds, 10, 0);
  // @ts-expect-error by id
  void tokensRepo.findToken(db, organizationId, "id");
  // @ts-expect-error webhook endpoints: the list
  void webhooksRepo.listEndpoints(db, ctx.organizationIds, 10, 0);
  // @ts-expect-error by id
  void webhooksRepo.findEndpoint(db, [organizationId], "id");
  // @ts-expect-error the enabled ones the dispatcher sends to
  void deliveryRepo.enabledEndpoints(db, [organizationId]);
  // @ts-expect-error the delivery log
  void webhooksRepo.listDeliveries(db, ctx.organizationIds, {}, 10, 0);
  // @ts-expect-error an endpoint's event
  void webhooksRepo.findEndpointEvent(db, organizationId, "id");
  const unfiltered = { productIds: null, customerIds: null, billingTypes: null };
  const range = { start: "", end: "", interval: "day", timezone: "UTC" } as const;
  // @ts-expect-error metrics: the periods
  void metricsRepo.periodRows(db, { organizationIds: [organizationId], ...unfiltered }, range);
  // @ts-expect-error the limits
  void metricsRepo.earliestOrganization(db, ctx.organizationIds);
  // @ts-expect-error exports: customers
  void exportsRepo.customerBatch(db, ctx.organizationIds, null, 10);
  // @ts-expect-error orders
  void exportsRepo.orderBatch(db, { scope: [organizationId] }, [], "UTC", null, 10);
  // @ts-expect-error subscriptions
  void exportsRepo.subscriptionBatch(db, { scope: ctx.organizationIds }, [], "UTC", null, 10);
  // @ts-expect-error organizations: by id
  void organizationsRepo.findOrganization(db, [organizationId], organizationId);
  // @ts-expect-error the caller's list
  void organizationsRepo.listOrganizations(db, ctx.organizationIds, {}, [], 10, 0);
  // @ts-expect-error sandbox clocks: an organization's offset
  void clockRepo.offsetOf(db, [organizationId], organizationId);
  // @ts-expect-error members: a team's list
  void membersRepo.listMembers(db, ctx.organizationIds, {}, [], 10, 0);
  // @ts-expect-error a member by id
  void membersRepo.findMember(db, "customer", { id: "id" });
  // @ts-expect-error members by ids
  void membersRepo.membersByIds(db, ["id"]);
  // @ts-expect-error wallets: a customer's list
  void walletsRepo.listCustomerWallets(db, { organizationId, customerId: "c" }, [], 10, 0);
  // @ts-expect-error the customers of a batch with a wallet
  void walletsRepo.customersWithWallets(db, organizationId, ["c"], "usd");
  // @ts-expect-error casting a string list is refused as well
  const forged: OrgScope = [organizationId] as string[];

  void repo.findProduct(db, scopeOfCaller(ctx), "id");
  void repo.findProducts(db, scopeOfResource({ organizationId }), ["id"]);
  void products.serializeProductsByIds(db, "", scopeOfCaller(ctx, organizationId), ["id"]);
  void discounts.discountOf(db, scopeOfResource({ organizationId }), "id");
  void linksRepo.listLinks(db, scopeOfCaller(ctx, organizationId), undefined, [], 10, 0);
  void customerRepo.findCustomer(db, scopeOfCaller(ctx), { externalId: "x" });
  void customers.customersByIds(db, scopeOfResource({ organizationId }), ["id"]);
  void subscriptionRepo.findSubscription(db, scopeOfCaller(ctx), "id");
  void subscriptions.subscriptionsByIds(db, scopeOfResource({ organizationId }), ["id"]);
  void orders.findOrderRow(db, scopeOfCaller(ctx), "id");
  void ordersRepo.itemsOf(db, scopeOfResource({ organizationId }), ["id"]);
  void refundsRepo.pendingOfOrder(db, scopeOfResource({ organizationId }), "id");
  void benefits.serializeBenefitsByIds(db, scopeOfResource({ organizationId }), ["id"]);
  void grantsRepo.grantedOfCustomer(db, scopeOfResource({ organizationId }), "id");
  void grantsMeters.customerMetersOf(db, scopeOfCaller(ctx), "id");
  void metersQueries.findMeter(db, scopeOfResource({ organizationId }), "id");
  void meters.meterFilterFor(db, scopeOfCaller(ctx, organizationId), "id");
  void membersRepo.membersByIds(db, scopeOfResource({ organizationId }), ["id"]);
  void walletsRepo.customerWalletById(db, scopeOfResource({ organizationId }), "c", "id");
  return forged;
}
