// The page a seat invitation links to (/portal/claim?invitation_token=…). Reading the invitation
// changes nothing, since mail scanners open links; only the button claims the seat, and the portal
// then opens with the session the claim answers with.
import { useEffect, useState } from "react";

interface ClaimInfo {
  product_name: string;
  organization_name: string;
  customer_email: string;
  can_claim: boolean;
}

export function ClaimSeat(props: { invitationToken: string; onClaimed(token: string): void }) {
  const [info, setInfo] = useState<ClaimInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    void fetch(`/v1/customer-seats/claim/${encodeURIComponent(props.invitationToken)}`)
      .then(async (res) =>
        res.ok
          ? setInfo((await res.json()) as ClaimInfo)
          : setError("This invitation is invalid, already used or expired."),
      )
      .catch(() => setError("The invitation could not be loaded."));
  }, [props.invitationToken]);

  async function claim() {
    setBusy(true);
    const res = await fetch("/v1/customer-seats/claim", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ invitation_token: props.invitationToken }),
    }).catch(() => null);
    if (res?.ok) {
      const body = (await res.json()) as { customer_session_token: string };
      props.onClaimed(body.customer_session_token);
      return;
    }
    setBusy(false);
    setError("This invitation is invalid, already used or expired.");
  }

  if (error)
    return (
      <main className="portal">
        <p role="alert" className="error">
          {error}
        </p>
      </main>
    );
  if (!info)
    return (
      <main className="portal" aria-busy="true">
        <p className="muted">Loading…</p>
      </main>
    );
  return (
    <main className="portal">
      <h1>{info.product_name}</h1>
      <p>
        {info.organization_name} has given {info.customer_email} a seat.
      </p>
      <button type="submit" disabled={busy || !info.can_claim} onClick={() => void claim()}>
        Claim your seat
      </button>
    </main>
  );
}
