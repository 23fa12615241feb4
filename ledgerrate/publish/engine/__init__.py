"""The engine room: what turns the rendered docs folder into HTML, apart from what the pages say.

mkdocs plug-ins that make a 28,000-page build fast (`raw_html`, `shared_markdown`, `shared_nav`,
`shared_frame`, `static_links`, `parallel_pages`, `compiled_templates`), the navigation both
engines are given (`nav`), the hook that lets plain `mkdocs build` at the repository root render
the editions first (`mkdocs_hook`), Zensical (`zensical`), and `run`, which drives them. The page
modules beside this package decide what each page says; the speed-ups change how fast it is
written, never a byte of it (each one's test builds the site with and without it).
Two plug-ins use mkdocs' private API; `tests/publish/test_mkdocs_private_api.py` names it and
fails when a new mkdocs changes it, and `pyproject.toml` bounds mkdocs to the tested line.
"""
