"""voxjudge studio: collect human judgments in the browser under the same rubric the model judge gets.

Needs the ``studio`` extra (SQLAlchemy, Starlette, Jinja2, uvicorn). Nothing here is imported by
``import voxjudge``.
"""
