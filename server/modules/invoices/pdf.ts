// The invoice and receipt PDFs, laid out with pdfkit: seller, buyer's billing details, the order's
// lines, discount, tax and total, and the document's number and date. Streams are left
// uncompressed: documents are a few kilobytes and their text stays searchable by tools that read
// raw PDF.
import { formatMoney } from "../../lib/currency-units.ts";
import PDFDocument from "pdfkit";
import type { CustomerAddress } from "../../../db/schema/customers.ts";

export interface DocumentData {
  kind: "invoice" | "receipt";
  number: string;
  issuedAt: Date;
  seller: { name: string };
  billTo: { name: string; address: CustomerAddress | null; email: string | null };
  lines: { label: string; amount: number }[];
  subtotal: number;
  discount: number;
  tax: number;
  total: number;
  currency: string;
  /** Receipts: what was paid, and how much of it has been refunded. */
  paid?: { amount: number; refunded: number };
}

function addressLines(a: CustomerAddress | null): string[] {
  if (!a) return [];
  const cityLine = [a.postal_code, a.city, a.state].filter(Boolean).join(" ");
  return [a.line1, a.line2, cityLine, a.country].filter((l): l is string => Boolean(l));
}

export function renderDocument(d: DocumentData): Promise<Buffer> {
  const title = d.kind === "invoice" ? "Invoice" : "Receipt";
  const doc = new PDFDocument({
    size: "A4",
    margin: 56,
    compress: false,
    info: { Title: `${title} ${d.number}`, Author: d.seller.name, Producer: "till" },
  });
  const chunks: Buffer[] = [];
  doc.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });
  const fmt = (n: number) => formatMoney(n, d.currency);

  doc.font("Helvetica-Bold").fontSize(20).text(title);
  doc.moveDown(0.3).font("Helvetica").fontSize(10);
  doc.text(`${title} number: ${d.number}`);
  doc.text(`Date: ${d.issuedAt.toISOString().slice(0, 10)}`);
  doc.moveDown();
  doc.font("Helvetica-Bold").text("From");
  doc.font("Helvetica").text(d.seller.name);
  doc.moveDown();
  doc.font("Helvetica-Bold").text("Bill to");
  doc.font("Helvetica").text(d.billTo.name);
  for (const l of addressLines(d.billTo.address)) doc.text(l);
  if (d.billTo.email) doc.text(d.billTo.email);
  doc.moveDown(1.5);

  const left = doc.page.margins.left;
  const right = doc.page.width - doc.page.margins.right;
  const row = (label: string, amount: string, bold = false) => {
    const y = doc.y;
    doc.font(bold ? "Helvetica-Bold" : "Helvetica");
    doc.text(label, left, y, { width: right - left - 120 });
    const after = doc.y;
    doc.text(amount, right - 120, y, { width: 120, align: "right" });
    doc.y = Math.max(after, doc.y);
    doc.x = left;
  };
  row("Description", "Amount", true);
  doc
    .moveTo(left, doc.y + 2)
    .lineTo(right, doc.y + 2)
    .stroke();
  doc.moveDown(0.5);
  for (const l of d.lines) row(l.label, fmt(l.amount));
  doc.moveDown();
  row("Subtotal", fmt(d.subtotal));
  if (d.discount) row("Discount", fmt(-d.discount));
  row("Tax", fmt(d.tax));
  row("Total", fmt(d.total), true);
  if (d.paid) {
    doc.moveDown();
    row("Amount paid", fmt(d.paid.amount), true);
    if (d.paid.refunded) row("Refunded", fmt(-d.paid.refunded));
  }
  doc.end();
  return done;
}
