"""One reading of an evaluation, made from its Progress, settings and records, that every face renders.

At the top of core: it gathers the statistics, the run's sampling and the renderers into
what the faces (CLI, app, API) and the reports show, so that none of them computes a figure.
"""
