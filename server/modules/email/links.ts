// A mail's link carries a live token (a portal session, a password reset, an invitation), and
// tokens are stored only as hashes; the outbox must still send the link again (the retry job) and
// show it in the sandbox outbox. So it keeps the link sealed (AES-256-GCM under a key of its own
// derived from AUTH_SECRET), and out of the text, which names it by a mark instead; both are opened
// only where the mail is sent again or listed. Rows written before were plain: read as they are (a
// sealed value starts with "v1.", a link with its scheme).
import { createPurposeBox } from "../../lib/secret-box.ts";

/** Where a mail's text says its link, the stored text says this instead. */
const LINK_MARK = "{{link}}";

export interface MailLinks {
  /** The text and link a row keeps: the link sealed, and out of the text. */
  seal(mail: { text: string; link?: string }): { text: string; link: string | null };
  /**
   * A row's text and link as the mail carries them; `lost` when the link was sealed under another
   * AUTH_SECRET and cannot be opened (the text then says so where the link was).
   */
  open(row: { text: string; link: string | null }): {
    text: string;
    link: string | null;
    lost?: true;
  };
}

export function mailLinks(authSecret: string): MailLinks {
  const box = createPurposeBox(authSecret, "email-link");
  return {
    seal: ({ text, link }) =>
      link
        ? { text: text.replaceAll(link, LINK_MARK), link: box.seal(link) }
        : { text, link: null },
    open: (row) => {
      let link = row.link;
      if (link?.startsWith("v1.")) {
        try {
          link = box.open(link);
        } catch {
          return {
            text: row.text.replaceAll(LINK_MARK, "(link no longer available)"),
            link: null,
            lost: true,
          };
        }
      }
      return { text: link ? row.text.replaceAll(LINK_MARK, link) : row.text, link };
    },
  };
}
