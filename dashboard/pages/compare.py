"""Compare: the paper's Table 2 recomputed, beside the paper's numbers."""

import streamlit as st

from dashboard.views import compare

st.title("Compare")
st.caption("Every method on the nine Table 2 configurations. Our numbers beside the paper's; "
           "results are cached per configuration.")
methods, seeds, config = compare.options()
rows, methods = compare.run(methods, seeds, config)
if not rows:
    st.info("Pick at least one method that runs (sidebar).")
else:
    frame = compare.table(rows, methods)
    st.subheader("Rounds per configuration")
    compare.chart(rows, methods)
    st.subheader("Spread over seeds")
    compare.spread(rows, methods)
    compare.download(frame)
