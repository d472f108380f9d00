"""The Streamlit dashboard of allreduce-lab: presentation only; every number comes from `core`."""
