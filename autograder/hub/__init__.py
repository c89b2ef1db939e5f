"""The course's JupyterHub recipe (``try_hub.sh``, ``jupyterhub_config.py``): the capped
spawner and each server's private mounts, modules of the ``autograder`` package."""
