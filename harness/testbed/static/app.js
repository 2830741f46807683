// Keeps a task page live: shows the state fragment the controller pushes
// whenever it changes (a server-sent event stream) and sends the composer and
// Stop through the JSON API without reloading the page.
"use strict";

(function () {
  const live = document.getElementById("live");
  if (!live) return;
  // Compare the browser's own serialisation of both sides: the first render
  // (included in the page) and the fragment differ in whitespace and entity
  // spelling only, and replacing identical content would detach every
  // element a reader (or a test) is looking at.
  const parser = document.createElement("template");
  function normalised(html) {
    parser.innerHTML = html;
    return parser.innerHTML.trim();
  }
  let pending = null;
  // A click is a press and a release on the same element: a fragment swapped in between takes the pressed element
  // away, and the browser drops the click without a word (a Stop, a decision or a link never taken). An update
  // waits while a pointer is held down in the fragment; the page catches up after the release's click.
  let pressed = false;
  live.addEventListener("pointerdown", () => (pressed = true));

  function show(html) {
    pending = html;
    if (pressed) return;
    // A key being typed into a card must not be wiped by an update; the page catches up once typing ends.
    const typing = document.activeElement;
    if (typing && live.contains(typing) && typing.tagName === "INPUT" && typing.value) return;
    pending = null;
    if (normalised(html) !== live.innerHTML.trim()) {
      live.innerHTML = html;
    }
    live.dataset.shownEvents = String(Number(live.dataset.shownEvents || 0) + 1); // states taken, for a reader to wait on
  }
  const catchUp = () => setTimeout(() => pending !== null && show(pending), 0);
  live.addEventListener("focusout", catchUp);
  live.addEventListener("input", catchUp);
  const release = () => {
    if (!pressed) return;
    pressed = false;
    catchUp();
  };
  // Released anywhere: a press dragged out of the fragment ends outside it.
  document.addEventListener("pointerup", release);
  document.addEventListener("pointercancel", release);

  function listen() {
    const events = new EventSource(live.dataset.eventsUrl);
    events.onmessage = (event) => {
      live.dataset.receivedEvents = String(Number(live.dataset.receivedEvents || 0) + 1); // shown or waiting
      show(event.data);
    };
    // A broken stream (the controller restarting) is opened again by the browser; one refused outright is not.
    events.onerror = () => {
      if (events.readyState === EventSource.CLOSED) setTimeout(listen, 400);
    };
  }
  listen();

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
      return;
    }
    if (!form.dataset.stopUrl) return;
    event.preventDefault();
    form.querySelector("button").disabled = true;
    await fetch(form.dataset.stopUrl, { method: "POST" });
  });
})();
