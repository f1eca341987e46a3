// What a PDF made by pdfkit says: pdfkit writes shown text as hex strings in TJ arrays, one array
// per run, so their decoded runs are the document's text, one per line.
export function pdfText(pdf: Buffer): string {
  const body = pdf.toString("latin1");
  return [...body.matchAll(/\[([^\]]*)\]\s*TJ/g)]
    .map((m) =>
      [...m[1]!.matchAll(/<([0-9a-fA-F]+)>/g)]
        .map((h) => Buffer.from(h[1]!, "hex").toString("latin1"))
        .join(""),
    )
    .join("\n");
}
