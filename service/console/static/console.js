// The console's only script of its own (no inline script anywhere: the CSP forbids it). It reads what to
// do from data- attributes: live progress of an import or a sending (polling a JSON view every second
// while it runs), and the opens and clicks chart of a sending (uPlot, loaded before this file).

(() => {
  const POLL_MS = 1000;
  /** Polls a progress view while it says running; stops on done, on a hidden tab it waits. */
  function poll(element) {
    const url = element.getAttribute("data-poll");
    if (url === null || !url.startsWith("/console/")) return;
    if (element.getAttribute("data-finished") === "true") return;
    let last;
    const tick = async () => {
      if (document.hidden) return setTimeout(tick, POLL_MS);
      let state;
      try {
        const res = await fetch(url, { credentials: "same-origin", headers: { accept: "application/json" } });
        if (!res.ok) return setTimeout(tick, 5 * POLL_MS);
        state = await res.json();
      } catch {
        return setTimeout(tick, 5 * POLL_MS);
      }
      const now = Date.now();
      for (const field of element.querySelectorAll("[data-field]")) {
        const name = field.getAttribute("data-field");
        if (Object.hasOwn(state, name)) field.textContent = String(state[name]);
      }
      const bar = element.querySelector("progress");
      if (bar !== null) {
        if (typeof state.percent === "number") {
          bar.value = state.percent;
          bar.max = 100;
        } else if (state.finished) bar.value = bar.max;
      }
      const speed = element.querySelector("[data-speed]");
      if (speed !== null && last !== undefined && typeof state.rows === "number") {
        const perSecond = ((state.rows - last.rows) * 1000) / Math.max(1, now - last.at);
        speed.textContent = `${Math.max(0, Math.round(perSecond)).toLocaleString("en-US")} rows/s`;
        const left = element.querySelector("[data-left]");
        if (left !== null && typeof state.remaining === "number" && perSecond > 0)
          left.textContent = `about ${Math.ceil(state.remaining / perSecond)} s left`;
      }
      if (typeof state.rows === "number") last = { rows: state.rows, at: now };
      if (state.finished) {
        // The rest of the page (rejected lines, totals) was drawn before the end: draw it again, once.
        if (element.hasAttribute("data-reload")) return window.location.reload();
        element.setAttribute("data-finished", "true");
        const done = element.querySelector("[data-done]");
        if (done !== null) done.hidden = false;
        return;
      }
      setTimeout(tick, POLL_MS);
    };
    tick();
  }

  /** Draws a sending's opens and clicks over time from its series view; redraws every few seconds. */
  function chart(element) {
    const url = element.getAttribute("data-series");
    if (url === null || !url.startsWith("/console/") || typeof uPlot !== "function") return;
    let plot;
    const draw = async () => {
      let series;
      try {
        const res = await fetch(url, { credentials: "same-origin" });
        if (!res.ok) return;
        series = await res.json();
      } catch {
        return;
      }
      element.setAttribute("data-points", String(series.t.length));
      element.setAttribute(
        "data-total",
        String(series.opens.reduce((a, b) => a + b, 0) + series.clicks.reduce((a, b) => a + b, 0)),
      );
      const data = [series.t, series.opens, series.clicks];
      const width = Math.max(280, element.clientWidth - 16);
      if (plot === undefined) {
        element.textContent = "";
        plot = new uPlot(
          {
            width,
            height: 300,
            title: `Opens and clicks per ${series.bucketLabel}`,
            scales: { x: { time: true } },
            series: [
              {},
              {
                label: "Opens",
                stroke: "#0b5cad",
                width: 2,
                fill: "rgba(11,92,173,0.08)",
                points: { show: true, size: 4 },
              },
              { label: "Clicks", stroke: "#b3261e", width: 2, points: { show: true, size: 4 } },
            ],
            axes: [{}, { label: "Events" }],
          },
          data,
          element,
        );
      } else plot.setData(data);
    };
    draw();
    if (element.getAttribute("data-live") === "true") setInterval(draw, 3000);
    window.addEventListener("resize", () => {
      if (plot !== undefined) plot.setSize({ width: Math.max(280, element.clientWidth - 16), height: 300 });
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    for (const element of document.querySelectorAll("[data-poll]")) poll(element);
    for (const element of document.querySelectorAll("[data-series]")) chart(element);
  });
})();
