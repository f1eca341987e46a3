// The checkout's frame: the bar with the seller's name and the overlay's close button, and the
// skeleton shown while the session loads.

export function Bar(props: {
  name: string | null;
  closable: boolean;
  onClose: (() => void) | null;
}) {
  return (
    <header className="bar">
      <span className="org">{props.name}</span>
      {props.onClose ? (
        <button
          type="button"
          className="close"
          aria-label="Close checkout"
          onClick={props.onClose}
          disabled={!props.closable}
        >
          ×
        </button>
      ) : null}
    </header>
  );
}

/** The page's shape while it loads, so nothing jumps when the checkout arrives. */
export function Skeleton() {
  return (
    <main className="checkout" aria-busy="true">
      <header className="bar">
        <span className="org" />
      </header>
      <div className="columns">
        <section className="summary skeleton" aria-label="Order summary">
          <p className="sr-only">Loading checkout…</p>
          <div className="block" style={{ height: 28, width: "60%" }} />
          <div className="block" style={{ height: 36, width: "40%" }} />
          <div className="block" style={{ height: 120 }} />
        </section>
        <div className="skeleton form-skeleton">
          <div className="block" style={{ height: 62 }} />
          <div className="block" style={{ height: 62 }} />
          <div className="block" style={{ height: 160 }} />
          <div className="block" style={{ height: 44 }} />
        </div>
      </div>
    </main>
  );
}
