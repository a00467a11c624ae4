"""Local `command` agents run as Ray tasks on a cluster (``--executor ray``)."""
