"""The studio web app (Starlette + Jinja2). Pages work without JavaScript; the small script
served from /static adds keyboard shortcuts and audio controls.

Signing in: a personal link ``/a/TOKEN`` (or ``/admin/TOKEN``) starts a server-side session whose
random id (never the token) goes into an HttpOnly, SameSite=Strict cookie, ``Secure`` over HTTPS.
The link signs in directly only when the browser says the navigation is the person's own (typed,
pasted, bookmarked: ``Sec-Fetch-Site: none``) or comes from this app; any other arrival (a link on
another site, an old browser) gets a confirm page first, so a page elsewhere cannot swap a
signed-in annotator into another account. Every sign-in starts a new session and ends the
browser's previous one; sessions expire, and sign-out ends them.

Every response (pages, audio, static files, errors) passes one guard (``studio.guard``): the Host
must be one the app was started for (DNS rebinding), and it carries the CSP, ``nosniff`` and
no-store headers. Inside it, request bodies are bounded before any form is parsed
(``limits.BodyLimit``). Every form carries a CSRF token bound to the session; cross-origin posts
are refused. Failed sign-ins are throttled per client address; a person's live sessions are
capped. Cookie names carry a tag of the study's secret, so two studies on one host do not share them.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import uuid
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from voxjudge.plural import counted
from voxjudge.studio import media, prompts, tasks
from voxjudge.studio.flow import Flow, NotYours
from voxjudge.studio.guard import Guard, client_address, host_name, public_host, scheme_of
from voxjudge.studio.limits import BodyLimit, Limits, Stalled, Throttle, TooLarge, refuse_body
from voxjudge.studio.sending import AudioResponse

log = logging.getLogger("voxjudge.studio")

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
MAX_ID = 2**31 - 1  # PostgreSQL INTEGER; SQLite would take more, but no study has that many rows
VERSION = re.compile(r"[0-9]{1,9}")  # a form's answer version: fits INTEGER on every database


class IdConvertor(Convertor):
    """Path integers that fit the database's integer columns; longer ones match no route (404)."""

    regex = "[0-9]{1,9}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(int(value))


register_url_convertor("id", IdConvertor())


def cookie_names(secret: str) -> tuple[str, str]:
    """(annotator, admin) cookie names of the study with this secret: two studies served on one host
    (other ports) each keep their own sign-in instead of overwriting each other's."""
    tag = hmac.new(secret.encode(), b"cookie-name", hashlib.sha256).hexdigest()[:12]
    return f"vj_a_{tag}", f"vj_admin_{tag}"


def create_app(
    store,
    *,
    results: str | None = None,
    metric_col: str | None = None,
    behind_proxy: bool = False,
    allowed_hosts: list[str] | None = None,
    session_hours: float = 12.0,
    limits: Limits | None = None,
):
    """The ASGI app. ``allowed_hosts``: host names people use to reach it (loopback names are always
    allowed); ``behind_proxy``: trust the last X-Forwarded-Proto/-Host/-For value, the one a TLS
    proxy in front adds; ``limits``: request bodies, sessions per person and failed sign-ins (the
    connection limits are the server's, ``studio.server``)."""
    from voxjudge.studio.admin import AdminView
    from voxjudge.studio.instructions import for_people

    limits = limits or Limits()
    flow = Flow(store)
    secret = store.setting("secret").encode()
    a_cookie, admin_cookie = cookie_names(store.setting("secret"))
    failed_signins = Throttle(limits.signins_per_minute)
    metric = None
    if results:
        from voxjudge.studio.metric import read_metric

        metric = read_metric(flow.task, results, metric_col)
    admin_view = AdminView(store, metric)
    guide = for_people(flow.task, flow.config, gold=bool(flow.gold), training=bool(flow.training))
    env = Environment(loader=PackageLoader("voxjudge.studio", "templates"), autoescape=select_autoescape(["html"]))
    env.globals["counted"] = counted
    static_dir = str(resources.files("voxjudge.studio").joinpath("static"))

    def page(template: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        return HTMLResponse(env.get_template(template).render(**ctx), status_code=status)

    def mac(purpose: str, value: str) -> str:
        return hmac.new(secret, f"{purpose}:{value}".encode(), hashlib.sha256).hexdigest()

    def csrf_for(who) -> str:
        return mac("csrf", who.session_hash)

    def https(request: Request) -> bool:
        return scheme_of(request.scope, request.headers, behind_proxy) == "https"

    def origin_of(request: Request) -> str:
        return (
            f"{scheme_of(request.scope, request.headers, behind_proxy)}://{public_host(request.headers, behind_proxy)}"
        )

    async def person(request: Request, admin: bool = False):
        sid = request.cookies.get(admin_cookie if admin else a_cookie)
        who = await run_in_threadpool(store.session, sid)
        if who is None or bool(who.is_admin) != admin:
            return None
        return who

    def denied() -> HTMLResponse:
        return page(
            "message.html",
            403,
            title="Not signed in",
            message="Open the personal link you were given to start (a session ends after "
            f"{session_hours:g} hours or when you sign out).",
        )

    def cross_site(request: Request, strict: bool = False) -> str | None:
        """Why a POST is refused: sent from another origin (None: from our own page). Without an
        Origin header a form is accepted only when not ``strict`` (its CSRF token then decides)."""
        site = request.headers.get("sec-fetch-site")
        if site is not None and site != "same-origin":
            return f"sent from another site ({site})"
        origin = request.headers.get("origin")
        if origin is None:
            return "no Origin header" if strict and site is None else None
        if origin == origin_of(request):
            return None
        if host_name(origin.split("://", 1)[-1]) == host_name(public_host(request.headers, behind_proxy)):
            log.warning(
                "studio: a form from %s reached the app as %s: behind a TLS proxy, start the app with "
                "behind_proxy and have the proxy send X-Forwarded-Proto",
                origin,
                origin_of(request),
            )
            return "served over another scheme than the app sees (a TLS proxy the app was not told about?)"
        return "sent from another site"

    def expired(reason: str) -> HTMLResponse:
        log.info("studio: refused a form: %s", reason)
        return page("message.html", 403, title="Form expired", message="Reload the page and answer again.")

    def begin(request: Request, who, cookie: str) -> Response:
        async def go() -> Response:
            sid = await run_in_threadpool(
                store.start_session, who.pk, session_hours, request.cookies.get(cookie), limits.sessions_per_person
            )
            if cookie == admin_cookie:
                target = "/admin"
            else:
                target = "/next" if who.intro_at is not None else "/intro"
            resp = RedirectResponse(target, status_code=303)
            resp.set_cookie(
                cookie,
                sid,
                max_age=int(session_hours * 3600),
                httponly=True,
                samesite="strict",
                secure=https(request),
                path="/",
            )
            return resp

        return go

    def login(cookie: str):
        async def handler(request: Request) -> Response:
            token = request.path_params["token"]
            address = client_address(request.scope, request.headers, behind_proxy)
            wait = failed_signins.blocked(address)
            if wait:
                log.warning("studio: sign-ins from %s refused for %d s (too many unknown links)", address, wait)
                resp = page(
                    "message.html",
                    429,
                    title="Too many attempts",
                    message=f"Too many unknown links were tried from here; try again in {wait} seconds.",
                )
                resp.headers["Retry-After"] = str(wait)
                return resp
            who = await run_in_threadpool(store.who, token)
            if who is None or bool(who.is_admin) != (cookie == admin_cookie):
                failed_signins.note(address)
                return page("message.html", 403, title="Unknown link", message="This link is not valid (any more).")
            confirm = mac("login", who.token_hash)
            if request.method == "POST":
                form = await request.form()
                why = cross_site(request, strict=True) or (
                    None if hmac.compare_digest(str(form.get("confirm", "")), confirm) else "bad confirm token"
                )
                if why:
                    return expired(why)
                return await begin(request, who, cookie)()
            if request.headers.get("sec-fetch-site") in ("none", "same-origin"):
                return await begin(request, who, cookie)()
            current = await person(request, admin=cookie == admin_cookie)
            return page(
                "confirm.html",
                who=who,
                current=current if current is not None and current.pk != who.pk else None,
                confirm=confirm,
                action=request.url.path,
            )

        return handler

    async def signout(request: Request) -> Response:
        form = await request.form()
        live = [(c, w) for c, a in ((a_cookie, False), (admin_cookie, True)) if (w := await person(request, a))]
        if not live:
            return page("message.html", title="Not signed in", message="Open your personal link to sign in.")
        ended = [
            c
            for c, who in live
            if not cross_site(request) and hmac.compare_digest(str(form.get("csrf", "")), csrf_for(who))
        ]
        if not ended:  # the session lives on: never say "signed out" then
            return expired(cross_site(request) or "bad csrf token on sign-out")
        resp = page("message.html", title="Signed out", message="Open your personal link to sign in again.")
        for cookie in ended:
            await run_in_threadpool(store.end_session, request.cookies.get(cookie))
            resp.delete_cookie(cookie, path="/", httponly=True, samesite="strict", secure=https(request))
        return resp

    async def home(request: Request) -> Response:
        return page("message.html", title="voxjudge studio", message="Open the personal link you were given.")

    async def intro(request: Request) -> Response:
        who = await person(request)
        if who is None:
            return denied()
        if request.method == "POST":
            form = await request.form()
            if cross_site(request) or not hmac.compare_digest(str(form.get("csrf", "")), csrf_for(who)):
                return expired(cross_site(request) or "bad csrf")
            await run_in_threadpool(store.mark_intro, who.pk)
            return RedirectResponse("/next", status_code=303)
        return page("intro.html", g=guide, name=who.name, csrf=csrf_for(who), started=who.intro_at is not None)

    async def next_item(request: Request) -> Response:
        who = await person(request)
        if who is None:
            return denied()
        if who.intro_at is None:
            return RedirectResponse("/intro", status_code=303)
        seq = await run_in_threadpool(flow.next_seq, who.pk)
        if seq is None:
            prog = await run_in_threadpool(flow.progress, who.pk)
            return page("done.html", name=who.name, progress=prog, csrf=csrf_for(who))
        return RedirectResponse(f"/item/{seq}", status_code=303)

    async def show(request: Request, error: str | None = None, status: int = 200, draft=None) -> Response:
        who = await person(request)
        if who is None:
            return denied()
        seq = request.path_params["seq"]
        try:
            view = await run_in_threadpool(flow.view, who.pk, seq)
        except NotYours:
            return page("message.html", 404, title="No such item", message="This item is not in your list.")
        prog = await run_in_threadpool(flow.progress, who.pk)
        return page(
            "item.html",
            status,
            v=view,
            answer=draft if draft is not None else (view.answer or {}),
            name=who.name,
            progress=prog,
            has_next=seq < prog["assigned_max"],
            csrf=csrf_for(who),
            submission_id=uuid.uuid4().hex,
            g=guide,
            messages=prompts.model_prompt(view.task, view.payload),
            diff=prompts.aligned(view.payload) if view.task == "asr-sentence" else None,
            error_types=prompts.error_types() if view.task == "asr-pairs" else [],
            dims=flow.config.get("dimensions", []),
            dim_names=prompts.dimension_names() if view.task in ("pairwise", "rank") else {},
            acr=tasks.ACR,
            must_listen=flow.must_listen,
            feedback=bool(request.query_params.get("feedback")) and view.status == "answered",
            error=error,
        )

    async def submit(request: Request) -> Response:
        who = await person(request)
        if who is None:
            return denied()
        form = await request.form()
        why = cross_site(request) or (
            None if hmac.compare_digest(str(form.get("csrf", "")), csrf_for(who)) else "bad csrf token"
        )
        if why:
            return expired(why)
        seq = request.path_params["seq"]
        skip_fields = ("csrf", "submission_id", "action", "flag", "note", "version", "go")
        fields = {k: v for k, v in form.items() if k not in skip_fields}
        version = str(form.get("version", "0"))
        base = int(version) if VERSION.fullmatch(version) else -1  # out of range: refused by flow.submit
        try:
            outcome = await run_in_threadpool(
                flow.submit,
                who.pk,
                seq,
                submission_id=str(form.get("submission_id", "")),
                skip=form.get("action") == "skip",
                fields=fields,
                flag=form.get("flag") == "on",
                note=str(form.get("note", "")),
                base_version=base,
            )
        except NotYours:
            return page("message.html", 404, title="No such item", message="This item is not in your list.")
        except tasks.AnswerError as e:
            return await show(request, error=str(e), status=422, draft=fields)
        if outcome == "stale":
            return page(
                "message.html",
                409,
                title="Changed meanwhile",
                message="This answer was saved from a newer page (another window, or a later edit); the newer "
                "answer is kept. Open the item again to change it.",
                link=f"/item/{seq}",
            )
        if flow.training and form.get("action") != "skip":  # only studies with training clips look again
            view = await run_in_threadpool(flow.view, who.pk, seq)
            if view.role == "training" and view.expected:
                return RedirectResponse(f"/item/{seq}?feedback=1", status_code=303)
        return RedirectResponse("/next" if form.get("go") != "stay" else f"/item/{seq}", status_code=303)

    async def item(request: Request) -> Response:
        return await (submit(request) if request.method == "POST" else show(request))

    async def send_audio(request: Request, rel: str | None, on_sent=None, pad: int = 0):
        if rel is None:
            return PlainTextResponse("not found", status_code=404)
        opened = await run_in_threadpool(media.open_audio, flow.audio_root, rel)
        if isinstance(opened, str):
            log.warning("studio: audio %s not served: %s", rel, opened)
            return PlainTextResponse("not found", status_code=404)
        # the type is the sniffed kind's, never the file name's; the bytes are the checked descriptor's
        return AudioResponse(opened, request.headers.get("range"), on_sent, pad)

    async def clip(request: Request) -> Response:
        who = await person(request)
        if who is None:
            return PlainTextResponse("not signed in", status_code=403)
        slot = request.path_params["slot"]
        target = await run_in_threadpool(flow.clip, who.pk, request.path_params["seq"], slot)
        if target is None:
            return PlainTextResponse("not found", status_code=404)
        assignment_pk, rel = target

        def on_sent(start: int, end: int, size: int, first_at: float) -> None:
            flow.note_sent(assignment_pk, slot, start, end, size, first_at)

        # a length of its own per assignment and slot (blinding: a reused clip does not keep its length)
        pad = 8 + 2 * (int(mac("pad", f"{assignment_pk}:{slot}")[:8], 16) % 2048)
        return await send_audio(request, rel, on_sent, pad)

    async def admin_audio(request: Request) -> Response:
        who = await person(request, admin=True)
        if who is None:
            return PlainTextResponse("not signed in", status_code=403)
        return await send_audio(request, await run_in_threadpool(flow.audio_file, request.path_params["pk"]))

    async def admin(request: Request) -> Response:
        who = await person(request, admin=True)
        if who is None:
            return denied()
        summary = await run_in_threadpool(admin_view.summary)
        return page("admin.html", s=summary, name=who.name, csrf=csrf_for(who))

    async def admin_export(request: Request) -> Response:
        who = await person(request, admin=True)
        if who is None:
            return denied()
        body, name, summary = await run_in_threadpool(admin_view.export_file)
        if body is None:
            return page("message.html", 409, title="Nothing to export", message="No answers yet.", link="/admin")
        return Response(
            body,
            media_type="text/plain; charset=utf-8",
            headers={
                "Content-Disposition": f'attachment; filename="{name}"',
                "X-Voxjudge-Items": f"{summary['written']} of {summary['items']} items had answers",
            },
        )

    async def instructions(request: Request) -> Response:
        who = await person(request)
        if who is None:
            return denied()
        return page("intro.html", g=guide, name=who.name, csrf=csrf_for(who), started=True)

    icon = resources.files("voxjudge.studio").joinpath("static/favicon.ico").read_bytes()

    async def favicon(request: Request) -> Response:
        return Response(icon, media_type="image/x-icon", headers={"Cache-Control": "max-age=86400"})

    routes = [
        Route("/", home),
        Route("/a/{token}", login(a_cookie), methods=["GET", "POST"]),
        Route("/admin/{token}", login(admin_cookie), methods=["GET", "POST"]),
        Route("/signout", signout, methods=["POST"]),
        Route("/intro", intro, methods=["GET", "POST"]),
        Route("/instructions", instructions),
        Route("/next", next_item),
        Route("/item/{seq:id}", item, methods=["GET", "POST"]),
        Route("/clip/{seq:id}/{slot:id}", clip),
        Route("/admin", admin),
        Route("/admin-audio/{pk:id}", admin_audio),
        Route("/admin-export", admin_export),
        Route("/favicon.ico", favicon),
        Mount("/static", StaticFiles(directory=static_dir), name="static"),
    ]
    allowed = LOOPBACK | {h for h in (allowed_hosts or []) if h}
    app = Starlette(routes=routes, exception_handlers={TooLarge: refuse_body, Stalled: refuse_body})
    return Guard(BodyLimit(app, limits), allowed, behind_proxy)
