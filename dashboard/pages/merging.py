"""How merging works: the paper's four-host example (Fig. 3), step by step."""

import streamlit as st

from dashboard.views import merging

st.title("How merging works")
st.caption("The paper's Fig. 3: four hosts A, B, C, D. Follow one shard from routing to the merged workload tree, "
           "then watch all four shards scheduled round by round.")
step = merging.step_picker()
root = merging.root_picker() if 2 <= step <= 5 else 0
merging.show(step, root)
