// Invoices and receipts over HTTP: the seller's /v1/orders/{id}/invoice, /receipt and PATCH
// /v1/orders/{id}; the portal's /v1/customer-portal/orders/{id}/… for the customer's own orders;
// and /v1/documents/{order}/{kind}.pdf, where a signed URL fetches the PDF without a session.
import type { RequestHandler } from "express";
import { z } from "zod";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { customerOf } from "../../lib/customer-context.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { scopeOfCaller, scopeOfCustomer } from "../../lib/org-scope.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { orderBillingUpdate } from "./schemas.ts";
import {
  generateInvoice,
  invoiceUrl,
  openDocument,
  receiptUrl,
  updateOrderBilling,
  type InvoiceDeps,
  type OrderScope,
} from "./service.ts";

const idParams = z.object({ id: z.uuid() });

export function invoicesRouter(
  deps: InvoiceDeps,
  guard: Guard,
  customerGuard: RequestHandler,
  /** The order as each API shows it after a PATCH (Order, CustomerOrder). */
  render: {
    order(req: Parameters<RequestHandler>[0], id: string): Promise<unknown>;
    portalOrder(req: Parameters<RequestHandler>[0], id: string): Promise<unknown>;
  },
): Router {
  const r = apiRouter();
  const seller = (req: Parameters<RequestHandler>[0]): OrderScope => ({
    organizationIds: scopeOfCaller(authOf(req)),
  });
  const customer = (req: Parameters<RequestHandler>[0]): OrderScope => {
    const ctx = customerOf(req);
    return { organizationIds: scopeOfCustomer(ctx), customerId: ctx.customerId };
  };
  const read = guard("orders:read", "orders:write");
  for (const [prefix, auth, scopeOf] of [
    ["/orders", read, seller],
    ["/customer-portal/orders", customerGuard, customer],
  ] as const) {
    r.post(`${prefix}/:id/invoice`, auth, async (req, res) => {
      const { id } = parseParams(idParams, req);
      await generateInvoice(deps, scopeOf(req), id);
      res.status(202).json({});
    });
    r.get(`${prefix}/:id/invoice`, auth, async (req, res) => {
      const { id } = parseParams(idParams, req);
      res.json(await invoiceUrl(deps, scopeOf(req), id));
    });
    r.get(`${prefix}/:id/receipt`, auth, async (req, res) => {
      const { id } = parseParams(idParams, req);
      res.json(await receiptUrl(deps, scopeOf(req), id));
    });
  }
  r.patch("/orders/:id", guard("orders:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    await updateOrderBilling(deps, seller(req), id, parseBody(orderBillingUpdate, req));
    res.json(await render.order(req, id));
  });
  r.patch("/customer-portal/orders/:id", customerGuard, async (req, res) => {
    const { id } = parseParams(idParams, req);
    await updateOrderBilling(deps, customer(req), id, parseBody(orderBillingUpdate, req));
    res.json(await render.portalOrder(req, id));
  });
  r.get("/documents/:id/:kind", async (req, res) => {
    const { id, kind } = parseParams(
      z.object({ id: z.uuid(), kind: z.enum(["invoice.pdf", "receipt.pdf"]) }),
      req,
    );
    const q = parseQuery(z.object({ expires: z.string(), signature: z.string() }), req);
    const type = kind === "invoice.pdf" ? "invoice" : "receipt";
    const doc = await openDocument(deps, id, type, q.expires, q.signature);
    if (!doc) throw new ResourceNotFound("This link is not valid or has expired.");
    res.setHeader("content-type", "application/pdf");
    res.setHeader("content-length", String(doc.size));
    res.setHeader(
      "content-disposition",
      `inline; filename="${type}-${(doc.number ?? id).replace(/[^A-Za-z0-9-]/g, "")}.pdf"`,
    );
    res.setHeader("cache-control", "private, no-store");
    doc.stream.pipe(res);
  });
  return r;
}
