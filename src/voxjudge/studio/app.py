"""The studio web app (Starlette + Jinja2). Pages work without JavaScript; the small script
served from /static adds keyboard shortcuts and audio controls.

A personal link ``/a/TOKEN`` (or ``/admin/TOKEN``) is exchanged for an HttpOnly, SameSite=Strict
cookie and the token leaves the address bar. Every form carries a CSRF token bound to the
person; audio is served by id, and only for items of the person asking.
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from voxjudge.studio import prompts, tasks
from voxjudge.studio.flow import Flow, NotYours

ANNOTATOR_COOKIE = "vj_a"
ADMIN_COOKIE = "vj_admin"
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # "no-referrer" would make browsers send Origin: null on our own forms
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


def create_app(store, *, results: str | None = None, metric_col: str | None = None) -> Starlette:
    from voxjudge.studio.admin import AdminView

    flow = Flow(store)
    secret = store.setting("secret").encode()
    metric = None
    if results:
        from voxjudge.studio.metric import read_metric

        metric = read_metric(flow.task, results, metric_col)
    admin_view = AdminView(store, metric)
    env = Environment(loader=PackageLoader("voxjudge.studio", "templates"), autoescape=select_autoescape(["html"]))
    static_dir = str(resources.files("voxjudge.studio").joinpath("static"))

    def page(template: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        html = env.get_template(template).render(**ctx)
        return HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)

    def csrf_for(who) -> str:
        return hmac.new(secret, f"csrf:{who.token_hash}".encode(), hashlib.sha256).hexdigest()

    async def person(request: Request, admin: bool = False):
        token = request.cookies.get(ADMIN_COOKIE if admin else ANNOTATOR_COOKIE)
        who = await run_in_threadpool(store.who, token)
        if who is None or bool(who.is_admin) != admin:
            return None
        return who

    def denied() -> HTMLResponse:
        return page(
            "message.html", 403, title="Not signed in", message="Open the personal link you were given to start."
        )

    def same_origin(request: Request) -> bool:
        origin = request.headers.get("origin")
        return origin is None or origin == f"{request.url.scheme}://{request.headers.get('host', '')}"

    def login(cookie: str, target: str):
        async def handler(request: Request) -> Response:
            token = request.path_params["token"]
            who = await run_in_threadpool(store.who, token)
            if who is None or bool(who.is_admin) != (cookie == ADMIN_COOKIE):
                return page("message.html", 403, title="Unknown link", message="This link is not valid (any more).")
            resp = RedirectResponse(target, status_code=303, headers=SECURITY_HEADERS)
            resp.set_cookie(cookie, token, httponly=True, samesite="strict", path="/")
            return resp

        return handler

    async def home(request: Request) -> Response:
        return page("message.html", title="voxjudge studio", message="Open the personal link you were given.")

    async def next_item(request: Request) -> Response:
        who = await person(request)
        if who is None:
            return denied()
        seq = await run_in_threadpool(flow.next_seq, who.pk)
        if seq is None:
            prog = await run_in_threadpool(flow.progress, who.pk)
            return page("done.html", name=who.name, progress=prog)
        return RedirectResponse(f"/item/{seq}", status_code=303, headers=SECURITY_HEADERS)

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
            messages=prompts.model_prompt(view.task, view.payload),
            note_text=prompts.HUMAN_NOTES[view.task],
            error_types=prompts.error_types() if view.task == "asr-pairs" else [],
            dims=flow.config.get("dimensions", []),
            dim_names=prompts.dimension_names() if view.task in ("pairwise", "rank") else {},
            error=error,
        )

    async def submit(request: Request) -> Response:
        who = await person(request)
        if who is None:
            return denied()
        form = await request.form()
        if not same_origin(request) or not hmac.compare_digest(str(form.get("csrf", "")), csrf_for(who)):
            return page("message.html", 403, title="Form expired", message="Reload the page and answer again.")
        seq = request.path_params["seq"]
        fields = {k: v for k, v in form.items() if k not in ("csrf", "submission_id", "action", "flag", "note")}
        try:
            await run_in_threadpool(
                flow.submit,
                who.pk,
                seq,
                submission_id=str(form.get("submission_id", "")),
                skip=form.get("action") == "skip",
                fields=fields,
                flag=form.get("flag") == "on",
                note=str(form.get("note", "")),
            )
        except NotYours:
            return page("message.html", 404, title="No such item", message="This item is not in your list.")
        except tasks.AnswerError as e:
            return await show(request, error=str(e), status=422, draft=fields)
        return RedirectResponse(
            "/next" if form.get("go") != "stay" else f"/item/{seq}", status_code=303, headers=SECURITY_HEADERS
        )

    async def item(request: Request) -> Response:
        return await (submit(request) if request.method == "POST" else show(request))

    async def audio_file(request: Request) -> Response:
        who = await person(request) or await person(request, admin=True)
        if who is None:
            return Response("not signed in", status_code=403)
        path = await run_in_threadpool(flow.audio_path, who, request.path_params["pk"])
        if path is None:
            return Response("not found", status_code=404)
        return FileResponse(path, headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "private"})

    async def admin(request: Request) -> Response:
        who = await person(request, admin=True)
        if who is None:
            return denied()
        summary = await run_in_threadpool(admin_view.summary)
        return page("admin.html", s=summary, name=who.name)

    routes = [
        Route("/", home),
        Route("/a/{token}", login(ANNOTATOR_COOKIE, "/next")),
        Route("/admin/{token}", login(ADMIN_COOKIE, "/admin")),
        Route("/next", next_item),
        Route("/item/{seq:int}", item, methods=["GET", "POST"]),
        Route("/audio/{pk:int}", audio_file),
        Route("/admin", admin),
        Mount("/static", StaticFiles(directory=static_dir), name="static"),
    ]
    return Starlette(routes=routes)
