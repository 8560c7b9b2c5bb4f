import type { Feature } from "../types.ts";
import { read, write } from "../../browser/storage.ts";
import { el, on, style } from "./lib/style.ts";

/**
 * A playlist in course mode (playlist_options.playback_mode "course"), on top of
 * the playlist feature's list and buttons: each lesson shows its lesson_label,
 * a check mark once completed, and stays locked (no list click, no next button)
 * until the lesson before it is completed. A lesson completes at its end (the
 * playlist sends `lesson_completed`) or, for the container video when it has a
 * quiz, once every question with a right answer was answered right. Progress
 * lives on the server per viewer (`GET /v1/course-progress`, asked at load and
 * again after a lead form made the viewer known), with this device's copy in
 * localStorage so a reload shows it at once.
 */
export const course: Feature = {
  name: "course",
  setup(player) {
    const pl = player.config.playlist;
    const items = (pl?.items || []).filter((i) => i?.hls);
    if (pl?.playback_mode !== "course" || !items.length) return;
    const { config } = player;
    const home = config.video.code;
    const key = `fl_course_${home}`;
    const done = new Set<string>();
    try {
      for (const c of JSON.parse(read("localStorage", key) || "[]")) if (typeof c === "string") done.add(c);
    } catch {}
    style(
      "fl-css-course",
      ".fl-list li.fl-locked{opacity:.5;cursor:not-allowed}.fl-check{margin-left:auto;color:var(--fl-main);font-weight:700}.fl-nextb[aria-disabled=true]{opacity:.4}",
    );
    const at = () => items.findIndex((i) => i.video_code === player.source.code);
    const locked = (i: number) => i > 0 && !done.has(items[i - 1]!.video_code);
    const list = () => player.mount.querySelector(".fl-list");
    const render = () => {
      list()
        ?.querySelectorAll("li")
        .forEach((li, i) => {
          const item = items[i];
          if (!item) return;
          const isDone = done.has(item.video_code);
          li.classList.toggle("fl-done", isDone);
          li.classList.toggle("fl-locked", locked(i));
          li.setAttribute("aria-disabled", String(locked(i)));
          li.title = locked(i) ? "Complete the previous lesson first" : "";
          let check = li.querySelector<HTMLElement>(".fl-check");
          if (isDone && !check) {
            check = el("span", "fl-check", li, "✓");
            check.setAttribute("aria-label", "Completed");
            check.setAttribute("role", "img");
          } else if (!isDone) check?.remove();
        });
      const next = player.controls?.querySelector(".fl-nextb");
      const i = at();
      next?.setAttribute("aria-disabled", String(i >= 0 && i < items.length - 1 && locked(i + 1)));
    };
    const complete = (code: string) => {
      if (done.has(code)) return;
      done.add(code);
      write("localStorage", key, JSON.stringify([...done]));
      render();
    };
    const ask = () =>
      fetch(
        `${config.events_url.replace(/\/$/, "")}/v1/course-progress?${new URLSearchParams({
          workspace_code: config.video.workspace_code,
          video_code: home,
          session_id: window.Frameline?.getSessionId() || "",
          device_id: window.Frameline?.getDeviceId() || "",
        })}`,
        { credentials: "omit" },
      )
        .then((r) => (r.ok ? r.json() : { completed: [] }))
        .then(
          (r: { completed?: unknown[] }) => (r.completed || []).forEach((c) => typeof c === "string" && complete(c)),
          () => undefined,
        );
    ask();
    // A lead form answered here may make this viewer someone with progress elsewhere: ask again once the events host took it.
    let timers: ReturnType<typeof setTimeout>[] = [];
    const offLead = player.on("lead", () => (timers = [1500, 4000].map((ms) => setTimeout(ask, ms))));

    // A locked lesson cannot be opened from the list or the next button.
    const stop = (e: Event) => {
      const target = e.target as Element | null;
      const li = target?.closest?.(".fl-list li");
      let blocked = false;
      if (li?.parentElement) blocked = locked([...li.parentElement.children].indexOf(li));
      else if (target?.closest?.(".fl-nextb")) {
        const i = at();
        blocked = i >= 0 && i < items.length - 1 && locked(i + 1);
      }
      if (blocked) {
        e.stopPropagation();
        e.preventDefault();
      }
    };
    const quiz = (player.settings.quiz_options?.enabled && player.settings.quiz_options.questions) || [];
    const graded = quiz.filter((q) => q?.choices?.some((c) => c.correct));
    const right = new Set<string>();
    // Capture: the check runs before the playlist's own handlers.
    player.mount.addEventListener("click", stop, true);
    const offs = [
      () => player.mount.removeEventListener("click", stop, true),
      on(player.video, "ended", () => at() >= 0 && complete(items[at()]!.video_code)),
      player.on("source", () => queueMicrotask(render)),
      player.on("quiz_answer", (a) => {
        if (player.source.code !== home || !graded.length) return;
        if (a.correct === true) right.add(String(a.question_id));
        if (graded.every((q) => right.has(String(q.id))) && !done.has(home)) {
          player.collect("lesson_completed", { video_code: home, container_video_code: home });
          complete(home);
        }
      }),
      offLead,
    ];
    render();
    return () => {
      timers.forEach(clearTimeout);
      offs.forEach((f) => f());
    };
  },
};
