// The monitor pages' shared helpers: money as people read it, a live connection (SSE) with a visible state.
"use strict";

const LOCALES = { EUR: "en-IE", DKK: "da-DK" };
const DIGITS = { EUR: 2, DKK: 2 };

function money(minor, currency) {
  if (minor === null || minor === undefined) return "–";
  const digits = DIGITS[currency] ?? 2;
  return new Intl.NumberFormat(LOCALES[currency] || "en", { style: "currency", currency,
    minimumFractionDigits: digits, maximumFractionDigits: digits }).format(minor / 10 ** digits);
}

function percent(fraction, digits = 2) {
  return fraction === null || fraction === undefined ? "–" : `${(fraction * 100).toFixed(digits)} %`;
}

function clock(ms) {
  return ms ? new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }) : "–";
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value; else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

// state: "live" (pushes arrive, broker answers), "waiting" (connecting or catching up), "down" (no monitor or no broker)
function showState(state, text) {
  const pill = document.getElementById("state");
  pill.className = `pill ${state}`;
  pill.textContent = text;
  pill.dataset.state = state;
  const banner = document.getElementById("down");
  banner.hidden = state !== "down";
  if (state === "down") banner.textContent = text;
}

function follow(path, render) {
  let source = null, lastMessage = Date.now();
  function open() {
    showState("waiting", "connecting…");
    source = new EventSource(path);
    source.onmessage = (message) => {
      lastMessage = Date.now();
      const body = JSON.parse(message.data);
      if (body.broker_reachable === false && body.ready) showState("down", "Platform down: the Kafka broker does not answer. Figures shown are the last ones read.");
      else if (!body.ready) showState("waiting", "monitor catching up…");
      else showState("live", "live");
      render(body);
    };
    source.onerror = () => {
      showState("down", "Monitor unreachable: reconnecting… (is `reelstream services up` running?)");
    };
  }
  open();
  // A connection that stays silent past two heartbeats is dead even if the browser has not noticed.
  setInterval(() => { if (Date.now() - lastMessage > 25000) { source.close(); lastMessage = Date.now(); open(); } }, 5000);
}
