"""Screen sections: Streamlit rendering of what `dashboard.data` returns, drawn with `dashboard.figures`."""
