// Keeps a task page live: re-fetches the server-rendered state fragment and
// sends the composer and Stop through the JSON API without reloading the page.
"use strict";

(function () {
  const live = document.getElementById("live");
  if (!live) return;
  const url = live.dataset.liveUrl;
  // Compare the browser's own serialisation of both sides: the first render
  // (included in the page) and the fragment differ in whitespace and entity
  // spelling only, and replacing identical content would detach every
  // element a reader (or a test) is looking at.
  const parser = document.createElement("template");
  function normalised(html) {
    parser.innerHTML = html;
    return parser.innerHTML.trim();
  }
  let inFlight = false;

  async function refresh() {
    if (inFlight) return;
    // A key being typed into a card must not be wiped by the next update; the page catches up after.
    const typing = document.activeElement;
    if (typing && live.contains(typing) && typing.tagName === "INPUT" && typing.value) return;
    inFlight = true;
    try {
      const response = await fetch(url, { cache: "no-store" });
      if (response.ok) {
        const html = await response.text();
        if (normalised(html) !== live.innerHTML.trim()) {
          live.innerHTML = html;
        }
      }
    } catch (error) {
      // The controller may be restarting; the next poll tries again.
    } finally {
      inFlight = false;
    }
  }
  setInterval(refresh, 400);

  const composer = document.querySelector("[data-testid=composer]");
  const errorBox = document.querySelector("[data-testid=composer-error]");
  composer.addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = composer.querySelector("textarea");
    const button = composer.querySelector("button");
    const body = input.value.trim();
    if (!body) return;
    button.disabled = true;
    errorBox.hidden = true;
    try {
      const response = await fetch(composer.dataset.apiUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ body: body }),
      });
      if (response.ok) {
        input.value = "";
      } else {
        errorBox.textContent = "Not sent: " + (await response.text());
        errorBox.hidden = false;
      }
    } catch (error) {
      errorBox.textContent = "Not sent: the server is not reachable. Try again.";
      errorBox.hidden = false;
    } finally {
      button.disabled = false;
      await refresh();
    }
  });

  live.addEventListener("submit", async (event) => {
    const form = event.target;
    if (form.dataset.decisionUrl) {
      // Approve / Decline: the button pressed names the decision; both buttons go quiet at once.
      event.preventDefault();
      let decision = event.submitter ? event.submitter.value : "";
      const payload = {};
      if (event.submitter && event.submitter.name === "choice") {
        // A provider question: the option pressed is the choice; None declines, an aggregator approves.
        payload.choice = decision;
        decision = decision === "None" ? "decline" : "approve";
      }
      payload.decision = decision;
      const key = form.querySelector("input[name=api_key]");
      if (key && decision === "approve") payload.api_key = key.value; // an email setup saves the key
      const buttons = form.querySelectorAll("button");
      buttons.forEach((button) => (button.disabled = true));
      const response = await fetch(form.dataset.decisionUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(payload),
      }).catch(() => null);
      if (!response || !response.ok) buttons.forEach((button) => (button.disabled = false)); // say it again

      await refresh();
      return;
    }
    if (!form.dataset.stopUrl) return;
    event.preventDefault();
    form.querySelector("button").disabled = true;
    await fetch(form.dataset.stopUrl, { method: "POST" });
    await refresh();
  });
})();
